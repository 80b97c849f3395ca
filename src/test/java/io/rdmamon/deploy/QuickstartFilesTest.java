package io.rdmamon.deploy;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static io.rdmamon.deploy.DeployFiles.map;
import static io.rdmamon.deploy.DeployFiles.maps;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * deploy/quickstart/backends.yaml (docs/quickstart-kubernetes.md): Kafka, InfluxDB, Alertmanager and Grafana in the
 * chart's namespace under the names and ports of the chart's default values, on the images the compose file pins.
 */
class QuickstartFilesTest {
    private static final Path BACKENDS = Path.of("deploy/quickstart/backends.yaml");

    @Test
    void shouldServeTheChartsDefaultAddressesWithTheComposeImagesWhenBackendsAreApplied() throws Exception {
        var objects = DeployFiles.objects(Files.readString(BACKENDS), BACKENDS.toString());
        objects.forEach(o -> assertThat(map(o.get("metadata")).get("namespace")).as(DeployFiles.name(o))
                .isEqualTo(DeployFiles.NAMESPACE));
        var values = ChartRenderer.YAML.readValue(DeployFiles.CHART.resolve("values.yaml").toFile(), Map.class);
        String kafka = map(values.get("kafka")).get("bootstrapServers").toString();
        String influx = map(values.get("influx")).get("url").toString();
        String alertmanager = map(values.get("alerts")).get("alertmanagerUrl").toString();
        for (String address : List.of(kafka, influx.replace("http://", ""), alertmanager.replace("http://", ""))) {
            String name = address.substring(0, address.indexOf(':'));
            int port = Integer.parseInt(address.substring(address.indexOf(':') + 1));
            var service = objects.stream().filter(o -> "Service".equals(o.get("kind")) && name.equals(DeployFiles.name(o)))
                    .findFirst().orElseThrow(() -> new AssertionError("no Service " + name + " for " + address));
            assertThat(maps(map(service.get("spec")).get("ports"))).anySatisfy(p -> assertThat(p.get("port")).isEqualTo(port));
        }
        var composeImages = DeployFiles.composeServices().values().stream().map(s -> String.valueOf(s.get("image"))).toList();
        var containers = DeployFiles.containers(Map.of(BACKENDS.toString(), objects));
        assertThat(containers).extracting(DeployFiles.Container::image)
                .containsExactlyInAnyOrder("apache/kafka:4.3.1", "influxdb:1.12.4", "prom/alertmanager:v0.25.1",
                        "grafana/grafana:12.4.12");
        containers.forEach(c -> assertThat(composeImages).as(c.where()).contains(c.image()));
    }
}
