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
 * stalls, normal ends). The {@code proc-*} traces (ranks sharing one GPU, each rank's process activity beside it) are
 * replayed with and without the GPU samples' process fields. {@link RealTracesTest} replays the same traces without
 * their GPU samples.
 */
class GpuTracesTest {
    @TempDir
    static Path root;
    private static List<Path> traces;
    private static EvaluationReport report;
    /** The scenario folders of the process traces imported without their process fields end so. */
    private static final String WITHOUT_PROCESSES = "-without-process-activity";

    @BeforeAll
    static void importAndEvaluateTheGpuTraces() throws IOException {
        try (Stream<Path> dirs = Files.list(RealTracesTest.TRACES)) {
            traces = dirs.filter(NcclTrace::isTrace).sorted().toList();
        }
        int withGpus = 0;
        int withProcesses = 0;
        for (Path dir : traces) {
            NcclTrace trace = NcclTrace.read(dir);
            if (!trace.hasGpus()) {
                continue;
            }
            withGpus++;
            for (long phase : RealTracesTest.PHASES) {
                ScenarioFiles.write(TraceImporter.importTrace(trace, TraceImporter.Form.RDMA, phase, 50, 1, true),
                        root.resolve(TraceImporter.scenarioName(trace, TraceImporter.Form.RDMA, phase)));
                if (trace.hasProcesses()) {
                    withProcesses++;
                    // the same GPU samples without the process fields (a collector that cannot read /proc)
                    ScenarioFiles.write(TraceImporter.importTrace(trace, TraceImporter.Form.RDMA, phase, 50, 1, true,
                            false), root.resolve(TraceImporter.scenarioName(trace, TraceImporter.Form.RDMA, phase)
                            + WITHOUT_PROCESSES));
                }
            }
        }
        assertThat(withGpus).as("traces with GPU telemetry").isGreaterThanOrEqualTo(16);
        assertThat(withProcesses).as("traces with process activity, at every phase")
                .isGreaterThanOrEqualTo(10 * RealTracesTest.PHASES.size());
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

    /**
     * {@code torchrun ... && upload} and an elastic restart in the same pods: GPUs empty while the pods upload for a
     * minute, or while torchrun starts the workers again, are no crash.
     */
    @Test
    void shouldRaiseNoAlarmOnAnUploadAfterTrainingOrAnElasticRestart() {
        List<ScenarioScore> chained = report.scenarios().stream()
                .filter(s -> s.scenario().startsWith("proc-upload-healthy")
                        || s.scenario().startsWith("proc-elastic-healthy")).toList();
        assertThat(chained).hasSizeGreaterThanOrEqualTo(2 * RealTracesTest.PHASES.size());
        assertThat(chained).allSatisfy(s -> assertThat(s.falsePositives()).as(s.scenario()).isEmpty());
    }

    /**
     * A rank stopped or blocked outside the collective (proc-stop-eval, -ckpt, -loader, proc-blocked-read) and a rank
     * killed while the others wait (proc-rank-killed): within 5 s with the process activity (issue 49's rule) or
     * the dead rank's empty GPU (issue 48's), at every phase; without the process fields the stuck ones keep the
     * network's deadlines.
     */
    @Test
    void shouldFlagRanksStuckOutsideOrDeadWithinFiveSeconds() {
        List<ScenarioScore.Hit> fast = report.scenarios().stream().flatMap(s -> s.hits().stream())
                .filter(GpuTracesTest::stuckOrDeadRank).toList();
        assertThat(fast).hasSizeGreaterThanOrEqualTo(5 * RealTracesTest.PHASES.size());
        assertThat(fast).allSatisfy(h -> assertThat(h.latencyMs()).as(h.incident().note())
                .isLessThanOrEqualTo(TraceImporter.GPU_HANG_DEADLINE_MS));
    }

    @Test
    void shouldKeepTheNetworkDeadlinesWithoutTheProcessFields() {
        List<ScenarioScore> without = report.scenarios().stream()
                .filter(s -> s.scenario().endsWith(WITHOUT_PROCESSES)).toList();
        assertThat(without).hasSizeGreaterThanOrEqualTo(10 * RealTracesTest.PHASES.size());
        assertThat(without.stream().flatMap(s -> s.hits().stream())
                .filter(h -> h.incident().note().contains(TraceImporter.STUCK_OUTSIDE_NOTE))).isEmpty();
    }

    /** A hang with a rank stuck outside the collective or dead while the others wait: due within 5 s. */
    static boolean stuckOrDeadRank(ScenarioScore.Hit h) {
        String note = h.incident().note() == null ? "" : h.incident().note();
        return note.contains(TraceImporter.STUCK_OUTSIDE_NOTE) || note.contains(TraceImporter.DEAD_RANK_NOTE);
    }

    @Test
    void shouldFlagHangsWhereEveryGpuWaitsWithinFiveSeconds() {
        List<ScenarioScore.Hit> gpuHangs = report.scenarios().stream().flatMap(s -> s.hits().stream())
                .filter(h -> h.incident().type().equals(Alert.STALLED_SYNC))
                .filter(h -> Long.valueOf(TraceImporter.GPU_HANG_DEADLINE_MS).equals(h.incident().maxLatencyMs()))
                .filter(h -> !stuckOrDeadRank(h))
                .toList();
        // the lost link and the hang after a 12 s stall, at four phases each
        assertThat(gpuHangs).hasSizeGreaterThanOrEqualTo(2 * RealTracesTest.PHASES.size());
        assertThat(gpuHangs).allSatisfy(h -> assertThat(h.latencyMs()).as(h.incident().note())
                .isLessThanOrEqualTo(TraceImporter.GPU_HANG_DEADLINE_MS));
    }
}
