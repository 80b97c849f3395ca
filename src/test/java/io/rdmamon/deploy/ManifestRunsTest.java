package io.rdmamon.deploy;

import com.fasterxml.jackson.core.type.TypeReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every rdmamon container's command line as Kubernetes builds it (the image's ENTRYPOINT, then the manifest's args
 * in place of the image's CMD) names each option once: the collector image's ENTRYPOINT once ended in --config and
 * the DaemonSet's args added a second one, which the collector refuses (exit 2). scripts/containers-test starts the
 * same command lines under podman.
 */
class ManifestRunsTest {
    private static final Pattern ENTRYPOINT = Pattern.compile("(?m)^ENTRYPOINT\\s+(\\[(?:[^\\]\\\\]|\\\\\\n)*])");

    @Test
    void shouldNameConfigOnceWhenTheImagesEntrypointRunsAManifestsArgs() throws IOException {
        var sources = new ArrayList<Map<String, List<Map<String, Object>>>>();
        sources.add(DeployFiles.plain());
        sources.add(DeployFiles.chart(List.of()));
        DeployFiles.exampleValues().forEach(v -> sources.add(DeployFiles.chart(List.of(v))));
        int checked = 0;
        for (var source : sources) {
            for (var c : DeployFiles.containers(source)) {
                if (!c.image().startsWith("rdmamon-")) {
                    continue;
                }
                List<String> line = new ArrayList<>(entrypoint(c.image().startsWith("rdmamon-collector")
                        ? "collector/Dockerfile" : "streams/Dockerfile"));
                line.addAll(DeployFiles.strings(c.spec().get("command")));
                line.addAll(c.args());
                assertThat(line.stream().filter("--config"::equals).count()).as(c.where() + ": " + line).isLessThanOrEqualTo(1);
                checked++;
            }
        }
        assertThat(checked).isGreaterThanOrEqualTo(4 * 6);
    }

    @Test
    void shouldStartTheCollectorAsTheDaemonSetSaysWhenPlanned(@TempDir Path dir) throws IOException {
        ManifestRuns.main(new String[]{"--out", dir.toString(), "--node", "node-a",
                "--property", "collector.properties:metrics.port=19464",
                "--host-path", "/sys=/fixture/sys", "--host-path", "/var/lib/kubelet/pod-resources=/fixture/pr",
                "--image", "rdmamon-collector=localhost/c:t", "--image", "rdmamon-streams=localhost/s:t"});
        Path collector;
        try (var plans = Files.list(dir)) {
            collector = plans.filter(p -> p.getFileName().toString().endsWith("-rdmamon-collector-collector")).findFirst().orElseThrow();
        }
        List<String> args = Files.readAllLines(collector.resolve("args"));
        assertThat(args.subList(args.indexOf("localhost/c:t"), args.size()))
                .containsExactly("localhost/c:t", "--config", "/etc/rdmamon/site/collector.properties");
        assertThat(args).contains("--user=0", "--read-only", "--cap-drop=ALL", "--cap-add=SYS_PTRACE", "--pid=host",
                "--env=NODE_NAME=node-a", "--volume=/fixture/sys:/host/sys:ro", "--memory=192m",
                "--volume=" + collector.resolve("volumes/config").toAbsolutePath() + ":/etc/rdmamon/site:ro");
        assertThat(args).noneMatch(a -> a.contains("RDMAMON_KAFKA_SASL_JAAS_CONFIG"));
        assertThat(Files.readString(collector.resolve("volumes/config/collector.properties")))
                .contains("collector.sysfs.root=/host/sys\n").endsWith("\nmetrics.port=19464\n");
        assertThat(Files.readString(collector.resolve("probe")).strip()).isEqualTo("/ready");
    }

    static List<String> entrypoint(String dockerfile) throws IOException {
        Matcher m = ENTRYPOINT.matcher(Files.readString(Path.of(dockerfile)));
        assertThat(m.find()).as(dockerfile + " has an ENTRYPOINT in exec form").isTrue();
        return ChartRenderer.JSON.readValue(m.group(1).replace("\\\n", " "), new TypeReference<List<String>>() { });
    }
}
