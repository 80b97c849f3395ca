package io.rdmamon.deploy;

import io.rdmamon.config.ConfigLoader;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static io.rdmamon.deploy.DeployFiles.map;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The values an operator needs: each role's extraProperties reach its properties file (and an unknown key stops the
 * role with its name), host interfaces default to the default route's, the collector may read other users'
 * /proc/PID/io, and the example values files render to settings every role accepts. (scripts/containers-test starts
 * the containers of these renderings; ManifestRuns prepares them.)
 */
class ChartValuesTest {
    private static final Map<String, String> ROLE_VALUES = Map.of("collector", "collector.properties",
            "streams", "streams.properties", "sink", "sink.properties", "alerts", "alerts.properties",
            "jobsWatch", "jobs-watch.properties");

    @Test
    void shouldWriteEachRolesExtraPropertiesLastIntoItsFileWhenValuesSetThem(@TempDir Path dir) throws IOException {
        Path values = Files.writeString(dir.resolve("values.yaml"), """
                collector: {extraProperties: {collector.podresources.shared.devices: "mlx5_.*", collector.host.interfaces: eth9}}
                streams: {extraProperties: {streams.nic.expected.device.types: "mlx5=24e9"}}
                sink: {extraProperties: {influx.request.timeout.ms: "60000"}}
                alerts: {extraProperties: {kafka.group.id: rdmamon-alerts-b}}
                jobsWatch: {extraProperties: {jobs.watch.job.label: team.example/job}}
                """);
        var files = configFiles(DeployFiles.chart(List.of(values)));
        // in key order, as Helm ranges over a map
        assertThat(files.get("collector.properties")).endsWith("\ncollector.gpu.enabled=auto\n"
                + "collector.host.interfaces=eth9\ncollector.podresources.shared.devices=mlx5_.*\n");
        // a key the chart sets itself: the later line wins when the file is read
        assertThat(properties(files.get("collector.properties")).getProperty("collector.host.interfaces")).isEqualTo("eth9");
        assertThat(files.get("streams.properties")).endsWith("\nstreams.nic.expected.device.types=mlx5=24e9\n");
        assertThat(files.get("sink.properties")).endsWith("\ninflux.request.timeout.ms=60000\n");
        assertThat(files.get("alerts.properties")).endsWith("\nkafka.group.id=rdmamon-alerts-b\n");
        assertThat(files.get("jobs-watch.properties")).endsWith("\njobs.watch.job.label=team.example/job\n");
        assertThat(configFiles(DeployFiles.chart(Map.of())).get("collector.properties")).as("nothing extra by default")
                .endsWith("\ncollector.gpu.enabled=auto\n");
    }

    @Test
    void shouldStopARoleWithTheKeysNameWhenExtraPropertiesHoldAKeyItDoesNotKnow(@TempDir Path dir) throws IOException {
        Path values = Files.writeString(dir.resolve("values.yaml"),
                "collector: {extraProperties: {collector.host.interface: eth0}}\n");
        Path file = Files.writeString(dir.resolve("collector.properties"),
                configFiles(DeployFiles.chart(List.of(values))).get("collector.properties"));
        var collector = RoleSettings.of("collector").orElseThrow();
        assertThatThrownBy(() -> ConfigLoader.load(collector.def(), file, Map.of(), Map.of(), RoleSettings.KAFKA_PREFIX))
                .isInstanceOf(ConfigException.class).hasMessageContaining("unknown setting collector.host.interface ");
    }

    @Test
    void shouldSampleTheDefaultRoutesInterfaceAndMayReadOtherProcessesIoWhenDefaultsAreUsed(@TempDir Path dir)
            throws IOException {
        var defaults = DeployFiles.chart(Map.of());
        assertThat(configFiles(defaults).get("collector.properties")).contains("\ncollector.host.interfaces=auto\n");
        var collector = collector(defaults);
        assertThat(collector.podSpec().get("hostPID")).isEqualTo(true);
        assertThat(map(collector.spec().get("securityContext")).get("capabilities"))
                .isEqualTo(Map.of("drop", List.of("ALL"), "add", List.of("SYS_PTRACE")));
        Path off = Files.writeString(dir.resolve("off.yaml"), "collector: {gpu: {ptrace: false}}\n");
        assertThat(map(collector(DeployFiles.chart(List.of(off))).spec().get("securityContext")).get("capabilities"))
                .isEqualTo(Map.of("drop", List.of("ALL")));
    }

    @Test
    void shouldRenderSettingsEveryRoleAcceptsWhenAnExampleValuesFileIsUsed() throws IOException {
        var examples = DeployFiles.exampleValues();
        assertThat(examples).extracting(p -> p.getFileName().toString())
                .contains("ack-erdma.yaml", "volcano-mlx5.yaml");
        for (Path example : examples) {
            var objects = DeployFiles.chart(List.of(example));
            for (var file : configFiles(objects).entrySet()) {
                var role = RoleSettings.of(RoleSettings.roleOfFile(file.getKey())).orElseThrow();
                Properties props = properties(file.getValue());
                Map<String, Object> own = new HashMap<>();
                for (String key : props.stringPropertyNames()) {
                    assertThat(role.readsKey(key)).as(example + ", " + file.getKey() + ": " + key).isTrue();
                    if (role.def().names().contains(key)) {
                        own.put(key, props.getProperty(key));
                    }
                }
                role.def().parse(own);
            }
        }
        var ack = DeployFiles.chart(List.of(DeployFiles.CHART.resolve("examples/ack-erdma.yaml")));
        assertThat(configFiles(ack).get("collector.properties")).contains("eadm.enabled=true", "collector.devices.include=erdma_.*",
                "collector.host.interfaces=auto");
        assertThat(collector(ack).mounts()).anySatisfy(m -> assertThat(m.get("mountPath")).isEqualTo("/host/eadm"));
        var volcano = DeployFiles.chart(List.of(DeployFiles.CHART.resolve("examples/volcano-mlx5.yaml")));
        assertThat(properties(configFiles(volcano).get("collector.properties")))
                .containsEntry("collector.podresources.shared.resources", "rdma/hca")
                .containsEntry("collector.podresources.shared.devices", "mlx5_.*");
    }

    /** kubectl apply -f deploy/kubernetes/ takes the files in name order: the namespace must exist first. */
    @Test
    void shouldApplyTheNamespaceFirstWhenTheManifestFolderIsAppliedOnAnEmptyCluster() {
        var plain = DeployFiles.plain();
        String first = plain.keySet().stream().sorted().findFirst().orElseThrow();
        assertThat(plain.get(first)).as(first).singleElement()
                .satisfies(o -> assertThat(o.get("kind")).isEqualTo("Namespace"))
                .satisfies(o -> assertThat(DeployFiles.name(o)).isEqualTo(DeployFiles.NAMESPACE));
        var clusterScoped = List.of("Namespace", "ClusterRole", "ClusterRoleBinding");
        plain.forEach((file, objects) -> objects.stream().filter(o -> !clusterScoped.contains(o.get("kind")))
                .forEach(o -> assertThat(map(o.get("metadata")).get("namespace"))
                        .as(file + ": " + o.get("kind") + " " + DeployFiles.name(o)).isEqualTo(DeployFiles.NAMESPACE)));
        plain.values().stream().flatMap(List::stream).filter(o -> "ClusterRoleBinding".equals(o.get("kind")))
                .flatMap(o -> DeployFiles.maps(o.get("subjects")).stream())
                .forEach(s -> assertThat(s.get("namespace")).isEqualTo(DeployFiles.NAMESPACE));
    }

    static Map<String, String> configFiles(Map<String, List<Map<String, Object>>> objects) {
        Map<String, String> out = new HashMap<>();
        objects.values().stream().flatMap(List::stream)
                .filter(o -> "ConfigMap".equals(o.get("kind")) && "rdmamon-config".equals(DeployFiles.name(o)))
                .forEach(o -> map(o.get("data")).forEach((k, v) -> out.put(k, v.toString())));
        ROLE_VALUES.values().forEach(f -> assertThat(out).containsKey(f));
        return out;
    }

    private static Properties properties(String text) throws IOException {
        Properties props = new Properties();
        props.load(new StringReader(text));
        return props;
    }

    private static DeployFiles.Container collector(Map<String, List<Map<String, Object>>> objects) {
        return DeployFiles.containers(objects).stream().filter(c -> c.role().equals("collector")).findFirst()
                .orElseThrow();
    }
}
