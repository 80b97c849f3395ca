package io.rdmamon.deploy;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * scripts/push-images: what it would run (--dry-run), its usage, and its refusal without a registry.
 * scripts/containers-test pushes for real, to a local registry.
 */
class PushImagesScriptTest {
    @Test
    void shouldBuildAndPushBothImagesUnderTheRegistryWhenDryRun() throws Exception {
        Result r = run("--registry", "registry.example.com/ml-infra/", "--tag", "0.2.0", "--tool", "docker",
                "--build-arg", "RUNTIME_IMAGE=mirror/jre:17", "--dry-run");
        assertThat(r.code).isZero();
        assertThat(r.out.strip().split("\n")).containsExactly(
                "docker build --build-arg RUNTIME_IMAGE=mirror/jre:17 -f collector/Dockerfile -t registry.example.com/ml-infra/rdmamon-collector:0.2.0 .",
                "docker push registry.example.com/ml-infra/rdmamon-collector:0.2.0",
                "docker build --build-arg RUNTIME_IMAGE=mirror/jre:17 -f streams/Dockerfile -t registry.example.com/ml-infra/rdmamon-streams:0.2.0 .",
                "docker push registry.example.com/ml-infra/rdmamon-streams:0.2.0");
        assertThat(run("--registry", "r.example", "--tool", "podman", "--dry-run").out)
                .as("the chart's appVersion by default").contains("-t r.example/rdmamon-collector:0.1.0 .");
    }

    @Test
    void shouldExplainItselfAndRefuseWithoutARegistry() throws Exception {
        assertThat(run("--help").out).contains("Usage: scripts/push-images --registry REGISTRY", "--dry-run");
        Result none = run("--dry-run");
        assertThat(none.code).isEqualTo(2);
        assertThat(none.err).contains("--registry is required");
    }

    private record Result(int code, String out, String err) {
    }

    private static Result run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bash", "scripts/push-images"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Result(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                .replaceAll(" +\n", "\n"), new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }
}
