package io.rdmamon.evaluate;

import io.rdmamon.model.Alert;
import io.rdmamon.replay.StreamsReplay;
import io.rdmamon.scenario.Incident;
import io.rdmamon.scenario.NcclTrace;
import io.rdmamon.scenario.ScenarioFiles;
import io.rdmamon.scenario.TraceImporter;
import io.rdmamon.streams.StreamsAppConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The GPU signal on real traffic: every trace under {@code testbed/nccl/traces} recorded with a GPU per rank and its
 * telemetry (the {@code gpu-*} traces, see testbed/nccl/README.md), imported as RDMA traffic with its GPU samples at
 * four phases, replayed with default settings and scored. A hang during which every rank's GPU waits inside a
 * collective must be flagged within {@link TraceImporter#GPU_HANG_DEADLINE_MS} of its start, whatever the job paused
 * before; every other incident within the network's bounds; no false alarm (rank-0-only evaluations and checkpoints,
 * stalls, normal ends). {@link RealTracesTest} replays the same traces without their GPU samples.
 */
class GpuTracesTest {
    @TempDir
    static Path root;
    private static List<Path> traces;
    private static EvaluationReport report;

    @BeforeAll
    static void importAndEvaluateTheGpuTraces() throws IOException {
        try (Stream<Path> dirs = Files.list(RealTracesTest.TRACES)) {
            traces = dirs.filter(NcclTrace::isTrace).sorted().toList();
        }
        int withGpus = 0;
        for (Path dir : traces) {
            NcclTrace trace = NcclTrace.read(dir);
            if (!trace.hasGpus()) {
                continue;
            }
            withGpus++;
            for (long phase : RealTracesTest.PHASES) {
                ScenarioFiles.write(TraceImporter.importTrace(trace, TraceImporter.Form.RDMA, phase, 50, 1, true),
                        root.resolve(TraceImporter.scenarioName(trace, TraceImporter.Form.RDMA, phase)));
            }
        }
        assertThat(withGpus).as("traces with GPU telemetry").isGreaterThanOrEqualTo(6);
        StreamsAppConfig config = StreamsReplay.config(null, Map.of(), Map.of());
        report = ScenarioEvaluator.of(config, 60_000, 2).evaluate(ScenarioEvaluator.scenarioDirs(root));
    }

    @Test
    void shouldFlagEveryIncidentInTimeWithNoFalseAlarm() {
        assertThat(report.scenarios()).isNotEmpty().allSatisfy(s -> {
            assertThat(s.misses()).as(s.scenario()).isEmpty();
            assertThat(s.late()).as(s.scenario()).isEmpty();
            assertThat(s.falsePositives()).as(s.scenario()).isEmpty();
        });
    }

    @Test
    void shouldFlagHangsWhereEveryGpuWaitsWithinFiveSeconds() {
        List<ScenarioScore.Hit> gpuHangs = report.scenarios().stream().flatMap(s -> s.hits().stream())
                .filter(h -> h.incident().type().equals(Alert.STALLED_SYNC))
                .filter(h -> Long.valueOf(TraceImporter.GPU_HANG_DEADLINE_MS).equals(h.incident().maxLatencyMs()))
                .toList();
        // the lost link and the hang after a 12 s stall, at four phases each
        assertThat(gpuHangs).hasSizeGreaterThanOrEqualTo(2 * RealTracesTest.PHASES.size());
        assertThat(gpuHangs).allSatisfy(h -> assertThat(h.latencyMs()).as(h.incident().note())
                .isLessThanOrEqualTo(TraceImporter.GPU_HANG_DEADLINE_MS));
    }
}
