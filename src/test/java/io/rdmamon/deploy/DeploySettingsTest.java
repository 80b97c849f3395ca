package io.rdmamon.deploy;

import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.StringReader;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static io.rdmamon.deploy.DeployFiles.map;
import static io.rdmamon.deploy.DeployFiles.maps;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * Environment variables, configuration keys and metrics ports in the chart and the compose file are the ones the
 * code reads: the test derives them from each role's ConfigDef, so a renamed key breaks the build, not a cluster.
 */
class DeploySettingsTest {

    @Test
    void shouldUseOnlyVariablesTheRoleReadsWhenContainersSetEnvironment() {
        for (var c : rdmamonContainers()) {
            RoleSettings role = settings(c.role());
            for (var e : c.env()) {
                assertThat(role.readsVariable(e.get("name").toString()))
                        .as(c.where() + ": " + e.get("name") + " is not read by rdmamon " + c.role()).isTrue();
            }
        }
        for (var service : composeServices().entrySet()) {
            RoleSettings role = settings(service.getValue().role());
            for (String name : map(service.getValue().spec().get("environment")).keySet()) {
                assertThat(role.readsVariable(name)).as("compose service " + service.getKey() + ": " + name
                        + " is not read by rdmamon " + role.role()).isTrue();
            }
        }
    }

    @Test
    void shouldHoldValidKeysForTheRoleWhenConfigMapShipsPropertiesFiles() throws IOException {
        var files = KubernetesManifestsTest.configMap("rdmamon-config");
        assertThat(files.keySet()).contains("collector.properties", "streams.properties", "sink.properties",
                "alerts.properties", "jobs-watch.properties");
        for (var file : files.entrySet()) {
            var role = RoleSettings.of(RoleSettings.roleOfFile(file.getKey()));
            if (role.isEmpty()) {
                continue; // jobs watch before it is merged: checked by shouldKnowJobsWatchKeysWhenWatcherIsBuilt
            }
            checkKeys(file.getKey(), file.getValue().toString(), role.get());
        }
    }

    @Test
    void shouldKnowJobsWatchKeysWhenWatcherIsBuilt() throws IOException {
        var role = RoleSettings.of("jobs watch");
        assumeThat(role).as("this checkout has no 'jobs watch' role (ConfigCommand roles: jobs-watch)").isPresent();
        checkKeys("jobs-watch.properties", KubernetesManifestsTest.configMapProperties("jobs-watch.properties"),
                role.get());
        assertThat(metricsPort(only("jobs watch"))).isEqualTo(role.get().metricsPort().orElseThrow());
    }

    @Test
    void shouldExposeTheDefaultMetricsPortWhenARoleServesMetrics() {
        for (var c : rdmamonContainers()) {
            if (c.spec().get("ports") == null) {
                continue;
            }
            var role = RoleSettings.of(c.role());
            if (role.isEmpty()) {
                continue;
            }
            int port = metricsPort(c);
            assertThat(port).as(c.where()).isEqualTo(role.get().metricsPort().orElseThrow());
            assertThat(map(map(map(c.workload().get("spec")).get("template")).get("metadata")).get("annotations"))
                    .as(c.where()).isEqualTo(Map.of("prometheus.io/scrape", "true",
                            "prometheus.io/port", String.valueOf(port), "prometheus.io/path", "/metrics"));
        }
        for (var service : composeServices().entrySet()) {
            var role = settings(service.getValue().role());
            List<String> ports = DeployFiles.strings(service.getValue().spec().get("ports"));
            role.metricsPort().ifPresent(port -> assertThat(ports).as("compose service " + service.getKey())
                    .containsExactly(port + ":" + port));
        }
    }

    @Test
    void shouldPointEveryConfigFlagAtAMountedFileWhenContainersTakeConfig() {
        for (var c : rdmamonContainers()) {
            int flag = c.args().indexOf("--config");
            assertThat(flag).as(c.where() + " has --config").isNotNegative();
            String path = c.args().get(flag + 1);
            String dir = path.substring(0, path.lastIndexOf('/'));
            var mount = c.mounts().stream().filter(m -> dir.equals(m.get("mountPath"))).findFirst()
                    .orElseThrow(() -> new AssertionError(c.where() + ": nothing mounted at " + dir));
            var items = maps(map(c.volume(mount.get("name").toString()).get("configMap")).get("items"));
            assertThat(items).as(c.where()).anyMatch(i -> path.endsWith("/" + i.get("path")));
        }
    }

    private static void checkKeys(String file, String text, RoleSettings role) throws IOException {
        Properties props = new Properties();
        props.load(new StringReader(text));
        Map<String, Object> own = new HashMap<>();
        for (String key : props.stringPropertyNames()) {
            assertThat(role.readsKey(key)).as(file + ": " + key + " is not a key of rdmamon " + role.role()).isTrue();
            if (role.def().names().contains(key)) {
                own.put(key, props.getProperty(key));
            }
        }
        ConfigDef def = role.def();
        def.parse(own); // throws ConfigException with the key's name on a value the role would refuse
    }

    private static int metricsPort(DeployFiles.Container c) {
        var ports = maps(c.spec().get("ports"));
        assertThat(ports).as(c.where()).singleElement().satisfies(p -> assertThat(p.get("name")).isEqualTo("metrics"));
        return (Integer) ports.get(0).get("containerPort");
    }

    private static RoleSettings settings(String role) {
        return RoleSettings.of(role).orElseThrow(() -> new AssertionError("the code has no role " + role));
    }

    private static List<DeployFiles.Container> rdmamonContainers() {
        // 'jobs watch' is left out on a checkout without the watcher; shouldKnowJobsWatchKeysWhenWatcherIsBuilt
        return DeployFiles.containers(DeployFiles.chart(Map.of())).stream()
                .filter(c -> !c.role().isEmpty() && RoleSettings.of(c.role()).isPresent()).toList();
    }

    private static DeployFiles.Container only(String role) {
        return DeployFiles.containers(DeployFiles.chart(Map.of())).stream().filter(c -> c.role().equals(role))
                .findFirst().orElseThrow();
    }

    /** Compose services that run an rdmamon image, with the role their command names. */
    static Map<String, ComposeService> composeServices() {
        Map<String, ComposeService> out = new HashMap<>();
        DeployFiles.composeServices().forEach((name, spec) -> {
            String image = String.valueOf(spec.get("image"));
            String role = RoleSettings.roleOf(image, DeployFiles.strings(spec.get("command")));
            if (!role.isEmpty()) {
                out.put(name, new ComposeService(role, spec));
            }
        });
        return out;
    }

    record ComposeService(String role, Map<String, Object> spec) {
    }

}
