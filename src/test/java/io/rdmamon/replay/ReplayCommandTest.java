package io.rdmamon.replay;

import io.rdmamon.cli.Main;
import io.rdmamon.model.Alert;
import io.rdmamon.model.Json;
import io.rdmamon.scenario.ScenarioCatalog;
import io.rdmamon.scenario.ScenarioFiles;
import io.rdmamon.scenario.ScenarioRecorder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code rdmamon replay} over the real topology, on the link-down scenario plus two bad lines and GPU samples. */
class ReplayCommandTest {
    @TempDir
    static Path dir;
    private static Path scenario;
    private static Run first;
    private static Run second;

    /** Two replays of the same files, shared by the tests: a replay of 10 simulated minutes takes seconds. */
    @BeforeAll
    static void recordAndReplayTwice() throws IOException {
        scenario = dir.resolve("link-down");
        ScenarioFiles.write(ScenarioRecorder.record(ScenarioCatalog.get("link-down", 1)), scenario);
        // one line the replay cannot place in time, one the topology must dead-letter (unknown schema version)
        Files.writeString(scenario.resolve(ScenarioFiles.SAMPLES), "this is not json\n"
                + "{\"v\":99,\"node\":\"gpu-node-1\",\"device\":\"mlx5_0\",\"port\":1,\"ts\":1767225900000}\n",
                StandardOpenOption.APPEND);
        // GPU samples beside them (--gpu-samples), one outside the contract
        Files.writeString(scenario.resolve(ScenarioFiles.GPU_SAMPLES), """
                {"v":1,"node":"gpu-node-1","gpu":0,"uuid":"GPU-0","ts":1767225900500,"intervalMs":1000,\
                "utilizationPercent":100,"memoryUtilizationPercent":0,"powerWatts":125,"smClockMHz":1980,"processes":1}
                {"v":1,"node":"gpu-node-1","gpu":1,"uuid":"GPU-1","ts":1767225900500,"intervalMs":1000,\
                "utilizationPercent":250,"memoryUtilizationPercent":0,"powerWatts":125,"smClockMHz":1980,"processes":1}
                """);
        first = replay(dir.resolve("out-1"));
        second = replay(dir.resolve("out-2"));
    }

    @Test
    void shouldGiveIdenticalOutputsWhenTheSameFilesAreReplayedTwice() throws IOException {
        assertThat(first.exitCode).isZero();
        assertThat(second.stdout).isEqualTo(first.stdout);
        for (String file : List.of(ReplayFiles.ALERTS, ReplayFiles.JOB_BANDWIDTH, ReplayFiles.LINK_HEALTH,
                ReplayFiles.DEAD_LETTER)) {
            assertThat(Files.mismatch(dir.resolve("out-1").resolve(file), dir.resolve("out-2").resolve(file)))
                    .as(file).isEqualTo(-1L);
        }
    }

    @Test
    void shouldPrintTheAlertsAndWriteEveryOutputTopic() throws IOException {
        Path out = dir.resolve("out-1");
        Run run = first;
        List<Alert> alerts = run.stdout.lines().map(l -> read(l, Alert.class)).toList();
        assertThat(alerts).extracting(Alert::type).contains(Alert.LINK_DOWN, Alert.STALLED_SYNC);
        assertThat(Files.readString(out.resolve(ReplayFiles.ALERTS))).isEqualTo(run.stdout);
        // one per port per 10 s of event time, plus every change (4,000+ samples in the scenario)
        assertThat(Files.readAllLines(out.resolve(ReplayFiles.LINK_HEALTH))).hasSizeGreaterThan(400);
        assertThat(Files.readAllLines(out.resolve(ReplayFiles.JOB_BANDWIDTH))).hasSizeGreaterThan(50);
        assertThat(Files.readAllLines(out.resolve(ReplayFiles.DEAD_LETTER))).hasSize(2)
                .anySatisfy(line -> assertThat(line).contains("unknown schema version v=99"))
                .anySatisfy(line -> assertThat(line).contains("field 'utilizationPercent' is 250.0: above 100 %"));
        assertThat(run.stderr).contains("skipped 1 bad lines");
    }

    private static <T> T read(String json, Class<T> type) {
        try {
            return Json.MAPPER.readValue(json, type);
        } catch (IOException e) {
            throw new AssertionError("not a " + type.getSimpleName() + ": " + json, e);
        }
    }

    private record Run(int exitCode, String stdout, String stderr) {
    }

    private static Run replay(Path out) {
        StringWriter stdout = new StringWriter();
        StringWriter stderr = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(stdout));
        cli.setErr(new PrintWriter(stderr));
        int code = cli.execute("replay", "--samples", scenario.resolve(ScenarioFiles.SAMPLES).toString(),
                "--host-samples", scenario.resolve(ScenarioFiles.HOST_SAMPLES).toString(),
                "--gpu-samples", scenario.resolve(ScenarioFiles.GPU_SAMPLES).toString(),
                "--jobs", scenario.resolve(ScenarioFiles.JOBS).toString(), "--out", out.toString());
        return new Run(code, stdout.toString(), stderr.toString());
    }
}
