package io.rdmamon.deploy;

import io.rdmamon.model.Topics;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static io.rdmamon.deploy.DeployFiles.map;
import static io.rdmamon.deploy.DeployFiles.maps;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Helm chart renders (with the subset of Go templates {@link ChartRenderer} knows) to valid objects, the plain
 * manifests are that rendering, and the objects hold what running rdmamon on a GPU cluster needs.
 * Regenerate the plain manifests: {@code mvn -q test -Dtest=KubernetesManifestsTest -Drdmamon.deploy.regenerate=true}.
 */
class KubernetesManifestsTest {
    private static final String HEADER = "# Generated from deploy/helm/rdmamon with its default values (namespace "
            + DeployFiles.NAMESPACE + ") by KubernetesManifestsTest; edit the chart, then regenerate:\n"
            + "#   mvn -q test -Dtest=KubernetesManifestsTest -Drdmamon.deploy.regenerate=true\n";

    @Test
    void shouldRenderEveryTemplateToNamedObjectsWhenValuesAreTheDefaults() {
        var chart = DeployFiles.chart(Map.of());
        assertThat(chart).isNotEmpty();
        chart.forEach((file, objects) -> {
            assertThat(objects).as(file).isNotEmpty();
            objects.forEach(o -> assertThat(o).as(file).containsKeys("apiVersion", "kind", "metadata"));
            objects.forEach(o -> assertThat(DeployFiles.name(o)).as(file).startsWith("rdmamon-"));
        });
    }

    @Test
    void shouldShipPlainManifestsThatAreTheChartRenderedWithDefaults() throws Exception {
        Map<String, String> rendered = new ChartRenderer(DeployFiles.CHART, DeployFiles.NAMESPACE,
                DeployFiles.NAMESPACE, Map.of()).render();
        if (Boolean.getBoolean("rdmamon.deploy.regenerate")) {
            for (var file : rendered.entrySet()) {
                Files.writeString(DeployFiles.KUBERNETES.resolve(file.getKey()), HEADER + file.getValue().strip() + "\n");
            }
        }
        var plain = DeployFiles.plain();
        rendered.forEach((file, text) -> assertThat(plain.get(file))
                .as(DeployFiles.KUBERNETES.resolve(file) + " differs from the chart: regenerate it (see this test's doc)")
                .isEqualTo(DeployFiles.objects(text, file)));
        assertThat(plain.keySet()).as("plain manifests without a template").isSubsetOf(
                new ArrayList<>(rendered.keySet()) {{ add("00-namespace.yaml"); }});
    }

    @Test
    void shouldReadHostSysfsAndKubeletSocketWhenCollectorRunsOnGpuNodes() {
        var collector = only(DeployFiles.containers(DeployFiles.chart(Map.of())), "collector");
        assertThat(collector.workload().get("kind")).isEqualTo("DaemonSet");
        Map<String, Object> sys = mount(collector, "/host/sys");
        assertThat(sys.get("readOnly")).isEqualTo(true);
        assertThat(map(collector.volume((String) sys.get("name")).get("hostPath")).get("path")).isEqualTo("/sys");
        assertThat(configMapProperties("collector.properties")).contains("collector.sysfs.root=/host/sys");
        var socketDir = mount(collector, "/var/lib/kubelet/pod-resources");
        assertThat(map(collector.volume((String) socketDir.get("name")).get("hostPath")).get("path"))
                .isEqualTo("/var/lib/kubelet/pod-resources");
        assertThat(map(mount(collector, "/var/lib/rdmamon")).get("readOnly")).as("spill volume writable").isNull();
        assertThat(collector.env()).anySatisfy(e -> {
            assertThat(e.get("name")).isEqualTo("NODE_NAME");
            assertThat(map(map(e.get("valueFrom")).get("fieldRef")).get("fieldPath")).isEqualTo("spec.nodeName");
        });
        assertThat(map(collector.podSpec().get("nodeSelector"))).isNotEmpty();
        assertThat(maps(collector.podSpec().get("tolerations"))).isNotEmpty();
        assertThat(map(map(collector.spec().get("resources")).get("limits"))).containsKeys("cpu", "memory");
        assertThat(map(collector.spec().get("securityContext")))
                .containsEntry("readOnlyRootFilesystem", true).containsEntry("allowPrivilegeEscalation", false);
        assertThat(collector.mounts()).noneMatch(m -> "/host/eadm".equals(m.get("mountPath")));
    }

    @Test
    void shouldMountHostEadmReadOnlyWhenEadmIsEnabled() {
        var collector = only(DeployFiles.containers(DeployFiles.chart(Map.of("collector.eadm.enabled", true,
                "collector.eadm.hostDir", "/opt/erdma/bin"))), "collector");
        Map<String, Object> eadm = mount(collector, "/host/eadm");
        assertThat(eadm.get("readOnly")).isEqualTo(true);
        assertThat(map(collector.volume((String) eadm.get("name")).get("hostPath")).get("path")).isEqualTo("/opt/erdma/bin");
    }

    @Test
    void shouldGrantJobWatcherOnlyPodAndNodeReadsWhenRbacIsRendered() {
        var objects = DeployFiles.chart(Map.of()).values().stream().flatMap(List::stream).toList();
        var roles = objects.stream().filter(o -> o.get("kind").toString().endsWith("Role")).toList();
        assertThat(roles).hasSize(1);
        assertThat(maps(roles.get(0).get("rules"))).singleElement().satisfies(rule -> {
            assertThat(DeployFiles.strings(rule.get("apiGroups"))).containsExactly("");
            // nodes for their instance-type label (jobs.watch.instance.type.label)
            assertThat(DeployFiles.strings(rule.get("resources"))).containsExactly("pods", "nodes");
            assertThat(DeployFiles.strings(rule.get("verbs"))).containsExactlyInAnyOrder("get", "list", "watch");
        });
        var watcher = only(DeployFiles.containers(DeployFiles.chart(Map.of())), "jobs watch");
        assertThat(watcher.podSpec().get("serviceAccountName")).isEqualTo("rdmamon-jobs-watch");
        DeployFiles.containers(DeployFiles.chart(Map.of())).stream().filter(c -> c != watcher && !c.role().equals("jobs watch"))
                .forEach(c -> assertThat(c.podSpec().get("automountServiceAccountToken")).as(c.where()).isEqualTo(false));
    }

    @Test
    void shouldTakeSecretsFromSecretReferencesWhenContainersNeedCredentials() {
        var objects = DeployFiles.chart(Map.of()).values().stream().flatMap(List::stream).toList();
        assertThat(objects).noneMatch(o -> "Secret".equals(o.get("kind")));
        for (var c : DeployFiles.containers(DeployFiles.chart(Map.of()))) {
            for (var e : c.env()) {
                String name = e.get("name").toString();
                if (name.matches(".*(PASSWORD|TOKEN|JAAS|CERTIFICATES|USERNAME).*")) {
                    assertThat(e).as(c.where() + " " + name).doesNotContainKey("value");
                    assertThat(map(map(e.get("valueFrom")).get("secretKeyRef"))).as(c.where() + " " + name)
                            .containsKeys("name", "key");
                }
            }
        }
        assertThat(containerNamed("sink").env()).extracting(e -> e.get("name"))
                .contains("RDMAMON_INFLUX_PASSWORD", "RDMAMON_INFLUX_TOKEN", "RDMAMON_KAFKA_SASL_JAAS_CONFIG");
    }

    /**
     * One principal per role (docs/deploy.md, "Kafka ACLs"): a role's own Secret replaces the shared one for its
     * Kafka credentials alone; roles without one keep the shared Secret.
     */
    @Test
    void shouldTakeARolesKafkaCredentialsFromItsOwnSecretWhereOneIsNamed() {
        var containers = DeployFiles.containers(DeployFiles.chart(Map.of(
                "kafka.sasl.streams.existingSecret", "rdmamon-kafka-streams")));
        for (var c : containers) {
            String expected = c.role().equals("streams") ? "rdmamon-kafka-streams" : "rdmamon-kafka";
            c.env().stream().filter(e -> e.containsKey("valueFrom")
                            && e.get("name").toString().matches("(RDMAMON_KAFKA_|SASL_JAAS|TRUSTSTORE).*"))
                    .forEach(e -> assertThat(map(map(e.get("valueFrom")).get("secretKeyRef")).get("name"))
                            .as(c.where() + " " + e.get("name")).isEqualTo(expected));
        }
        assertThat(containers).filteredOn(c -> c.role().equals("streams")).isNotEmpty();
    }

    @Test
    void shouldCreateEveryTopicWithJobsCompactedWhenTopicsJobAndComposeRun() throws Exception {
        String chartScript = configMap("rdmamon-topics").get("create-topics.sh").toString();
        String composeScript = Files.readString(Path.of("deploy/compose/create-topics.sh"));
        for (String script : List.of(chartScript, composeScript)) {
            for (String topic : topicConstants()) {
                assertThat(script).contains("create " + topic + " cleanup.policy=");
            }
            assertThat(script).contains("create " + Topics.JOBS + " cleanup.policy=compact");
        }
        assertThat(configMapProperties("streams.properties")).contains("streams.topics.partitions=6");
    }

    @Test
    void shouldRunNoMoreStreamInstancesThanPartitionsWhenDefaultsAreUsed() {
        var streams = only(DeployFiles.containers(DeployFiles.chart(Map.of())), "streams");
        assertThat(streams.workload().get("kind")).isEqualTo("StatefulSet");
        int replicas = (Integer) map(streams.workload().get("spec")).get("replicas");
        assertThat(replicas).isBetween(1, 6);
        assertThat(maps(map(streams.workload().get("spec")).get("volumeClaimTemplates"))).isNotEmpty();
        assertThat(mount(streams, "/var/lib/rdmamon")).isNotNull();
        assertThat(configMapProperties("streams.properties")).contains("streams.state.dir=/var/lib/rdmamon/streams-state");
    }

    static List<String> topicConstants() throws IllegalAccessException {
        List<String> topics = new ArrayList<>();
        for (Field f : Topics.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                topics.add((String) f.get(null));
            }
        }
        return topics;
    }

    static Map<String, Object> configMap(String name) {
        return DeployFiles.chart(Map.of()).values().stream().flatMap(List::stream)
                .filter(o -> "ConfigMap".equals(o.get("kind")) && name.equals(DeployFiles.name(o)))
                .map(o -> map(o.get("data"))).findFirst().orElseThrow();
    }

    static String configMapProperties(String file) {
        return configMap("rdmamon-config").get(file).toString();
    }

    private static DeployFiles.Container containerNamed(String name) {
        return DeployFiles.containers(DeployFiles.chart(Map.of())).stream()
                .filter(c -> name.equals(c.spec().get("name"))).findFirst().orElseThrow();
    }

    private static DeployFiles.Container only(List<DeployFiles.Container> containers, String role) {
        var matching = containers.stream().filter(c -> c.role().equals(role)).toList();
        assertThat(matching).as("containers running " + role).hasSize(1);
        return matching.get(0);
    }

    private static Map<String, Object> mount(DeployFiles.Container c, String path) {
        return c.mounts().stream().filter(m -> path.equals(m.get("mountPath"))).findFirst()
                .orElseThrow(() -> new AssertionError(c.where() + ": nothing mounted at " + path + " in "
                        + Arrays.toString(c.mounts().toArray())));
    }
}
