package io.rdmamon.deploy;

import io.rdmamon.collector.CollectorConfig;
import io.rdmamon.config.ConfigLoader;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ACS examples in deploy/acs (docs/acs.md): the sidecar block and both example PyTorchJobs parse, every pod
 * template carries the collector with the settings the code reads (pod mode, the pod's identity from the downward
 * API), and the labels {@code jobs watch} recognises with its defaults.
 */
class AcsManifestsTest {
    private static final Path ACS = Path.of("deploy/acs");
    private static final Set<String> DOWNWARD_API = Set.of("POD_NAME", "POD_NAMESPACE", "NODE_NAME");

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> podTemplates(Path file) throws IOException {
        Map<String, Object> job = DeployFiles.objects(Files.readString(file), file.toString()).get(0);
        Map<String, Object> replicas = (Map<String, Object>) ((Map<String, Object>) job.get("spec"))
                .get("pytorchReplicaSpecs");
        List<Map<String, Object>> out = new ArrayList<>();
        replicas.values().forEach(r -> out.add((Map<String, Object>) ((Map<String, Object>) r).get("template")));
        return out;
    }

    @SuppressWarnings("unchecked")
    private static void assertCollector(Map<String, Object> container, String where) {
        RoleSettings collector = RoleSettings.of("collector").orElseThrow();
        Map<String, Object> env = new HashMap<>();
        for (Map<String, Object> e : (List<Map<String, Object>>) container.get("env")) {
            String name = e.get("name").toString();
            assertThat(collector.readsVariable(name) || DOWNWARD_API.contains(name))
                    .as(where + ": " + name + " is not read by rdmamon collector").isTrue();
            env.put(name, e.containsKey("value") ? e.get("value") : e.get("valueFrom"));
        }
        assertThat(env).as(where).containsEntry(ConfigLoader.envName(CollectorConfig.MODE_CONFIG),
                CollectorConfig.MODE_POD).containsKeys("POD_NAME", "POD_NAMESPACE");
        assertThat(container.get("image").toString()).startsWith("rdmamon-collector");
        assertThat((Map<String, Object>) container.get("securityContext"))
                .containsEntry("readOnlyRootFilesystem", true).containsEntry("allowPrivilegeEscalation", false);
    }

    @Test
    @SuppressWarnings("unchecked")
    void shouldCarryTheInPodCollectorInEveryReplicaOfBothExampleJobs() throws IOException {
        Map<String, Object> sidecar = (Map<String, Object>) ChartRenderer.YAML.readValue(
                ACS.resolve("collector-sidecar.yaml").toFile(), List.class).get(0);
        assertCollector(sidecar, "collector-sidecar.yaml");
        for (String model : List.of("p16en", "gu8tf")) {
            Path file = ACS.resolve("pytorchjob-" + model + ".yaml");
            List<Map<String, Object>> templates = podTemplates(file);
            assertThat(templates).as(file.toString()).hasSize(2);
            for (Map<String, Object> template : templates) {
                Map<String, Object> labels = (Map<String, Object>) ((Map<String, Object>) template.get("metadata"))
                        .get("labels");
                assertThat(labels).containsEntry("alibabacloud.com/compute-class", "gpu")
                        .containsEntry("alibabacloud.com/gpu-model-series", model.toUpperCase(java.util.Locale.ROOT));
                List<Map<String, Object>> containers = (List<Map<String, Object>>)
                        ((Map<String, Object>) template.get("spec")).get("containers");
                assertThat(containers).filteredOn(c -> c.get("name").equals("rdmamon-collector")).singleElement()
                        .satisfies(c -> assertCollector(c, file.toString()));
                assertThat(containers).filteredOn(c -> c.get("name").equals("rdmamon-collector")).singleElement()
                        .isEqualTo(sidecar);
            }
        }
    }
}
