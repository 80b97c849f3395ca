package io.rdmamon.deploy;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.rdmamon.deploy.DeployFiles.map;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/** The compose file is valid for docker-compose itself and builds rdmamon's images from the repository's Dockerfiles. */
class ComposeFileTest {

    @Test
    void shouldValidateWhenDockerComposeReadsTheFile() throws Exception {
        Process p;
        try {
            p = new ProcessBuilder("docker-compose", "-f", DeployFiles.COMPOSE.toString(), "config", "--quiet")
                    .redirectErrorStream(true).start();
        } catch (IOException e) {
            fail("docker-compose is not installed: apt-get install -y docker-compose (scripts/test installs it)");
            return;
        }
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("docker-compose config finished").isTrue();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as("docker-compose config: " + output).isZero();
    }

    @Test
    void shouldBuildRdmamonImagesFromTheRepositoryDockerfilesWhenServicesUseThem() {
        Map<String, String> dockerfiles = Map.of("rdmamon-streams", "streams/Dockerfile",
                "rdmamon-collector", "collector/Dockerfile");
        DeployFiles.composeServices().forEach((name, service) -> {
            String image = String.valueOf(service.get("image"));
            String repository = image.split(":")[0];
            if (dockerfiles.containsKey(repository)) {
                Map<String, Object> build = map(service.get("build"));
                assertThat(build.get("dockerfile")).as(name).isEqualTo(dockerfiles.get(repository));
                assertThat(DeployFiles.COMPOSE.getParent().resolve(build.get("context").toString()).normalize())
                        .as(name + " build context is the repository root").isEqualTo(Path.of(""));
            }
        });
        var chartImages = DeployFiles.containers(DeployFiles.chart(Map.of())).stream()
                .map(c -> c.image().split(":")[0]).filter(dockerfiles::containsKey).distinct().toList();
        assertThat(chartImages).containsExactlyInAnyOrderElementsOf(dockerfiles.keySet());
        dockerfiles.values().forEach(f -> assertThat(Path.of(f)).exists());
    }

    @Test
    void shouldMountOnlyExistingRepositoryFilesWhenServicesBindThem() {
        DeployFiles.composeServices().forEach((name, service) -> {
            for (String volume : DeployFiles.strings(service.get("volumes"))) {
                String source = volume.split(":")[0];
                if (source.startsWith(".")) {
                    assertThat(Files.exists(DeployFiles.COMPOSE.getParent().resolve(source)))
                            .as(name + " mounts " + source).isTrue();
                }
            }
        });
        assertThat(List.of("datasources", "dashboards", "alerting")).allSatisfy(dir ->
                assertThat(DeployFiles.strings(DeployFiles.composeServices().get("grafana")
                        .get("volumes"))).anyMatch(v -> v.contains("provisioning/" + dir + ":/etc/grafana/provisioning/"
                        + dir)));
    }
}
