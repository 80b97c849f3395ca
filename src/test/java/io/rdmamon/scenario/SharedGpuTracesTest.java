package io.rdmamon.scenario;

import io.rdmamon.model.GpuSample;
import io.rdmamon.model.JobRecord;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The committed shared-GPU traces (testbed/nccl/traces/proc-*): each rank's own GPU modelled from what it did, its
 * processes' activity in the GPU samples, and the ground truth of issues 48 and 49.
 */
class SharedGpuTracesTest {
    private static final Path TRACES = Path.of("testbed", "nccl", "traces");

    private static NcclTrace read(String name) throws IOException {
        return NcclTrace.read(TRACES.resolve(name));
    }

    private static List<GpuSample> samples(ScenarioRecorder.Recording r, String node, long fromS, long toS) {
        return r.gpuSamples().stream().filter(g -> g.node().equals(node))
                .filter(g -> g.ts() >= TraceImporter.EPOCH + fromS * 1000 && g.ts() < TraceImporter.EPOCH + toS * 1000)
                .sorted(Comparator.comparingLong(GpuSample::ts)).toList();
    }

    @Test
    void shouldShowTheStoppedRankWithoutProgressAndItsPeerWaitingInTheCollective() throws IOException {
        NcclTrace trace = read("proc-stop-eval-hang");
        assertThat(trace.meta().sharedGpus()).isTrue();
        ScenarioRecorder.Recording r = TraceImporter.importTrace(trace, TraceImporter.Form.RDMA, 0, 0, 1, true);
        // rank 1 stopped at 90.6 s inside its evaluation; rank 0 waits once its pass is over
        assertThat(samples(r, "gpu-node-2", 100, 140)).isNotEmpty().allSatisfy(g -> {
            assertThat(g.processStates()).isEqualTo("T");
            assertThat(g.processCpuCores()).isZero();
            assertThat(g.processReadBytesPerSec()).isZero();
            assertThat(g.utilizationPercent()).isZero();
        });
        assertThat(samples(r, "gpu-node-1", 100, 140)).isNotEmpty().allSatisfy(g -> {
            assertThat(g.utilizationPercent()).isEqualTo(100.0);
            assertThat(g.memoryUtilizationPercent()).isZero();
            assertThat(g.processCpuCores()).isGreaterThan(1.0);
            assertThat(g.processes()).isEqualTo(1);
        });
        // due within 5 s of when the picture holds, once rank 0's pass is over
        Incident hang = r.truth().incidents().stream().filter(i -> i.expect().equals(Incident.ALERT)).findFirst()
                .orElseThrow();
        assertThat(hang.maxLatencyMs()).isEqualTo(TraceImporter.GPU_HANG_DEADLINE_MS);
        assertThat(hang.note()).contains(TraceImporter.STUCK_OUTSIDE_NOTE);
        assertThat(hang.onsetMs() - TraceImporter.EPOCH).isBetween(90_000L, 100_000L);
    }

    @Test
    void shouldLeaveTheProcessFieldsOutAndKeepTheNetworkDeadlineWithoutThem() throws IOException {
        ScenarioRecorder.Recording r = TraceImporter.importTrace(read("proc-blocked-read-hang"),
                TraceImporter.Form.RDMA, 0, 0, 1, true, false);
        assertThat(r.gpuSamples()).isNotEmpty().allSatisfy(g -> {
            assertThat(g.processCpuCores()).isNull();
            assertThat(g.processStates()).isNull();
        });
        Incident hang = r.truth().incidents().stream().filter(i -> i.expect().equals(Incident.ALERT)).findFirst()
                .orElseThrow();
        assertThat(hang.maxLatencyMs()).isGreaterThan(TraceImporter.GPU_HANG_DEADLINE_MS);
    }

    @Test
    void shouldKeepAKilledRanksJobRunningWhileItsPeersWaitAndDueTheHangWithinFiveSeconds() throws IOException {
        ScenarioRecorder.Recording r = TraceImporter.importTrace(read("proc-rank-killed-hang"),
                TraceImporter.Form.RDMA, 0, 0, 1, true);
        assertThat(r.jobs()).noneMatch(j -> j.state().equals(JobRecord.FAILED));
        assertThat(samples(r, "gpu-node-3", 95, 140)).allSatisfy(g -> assertThat(g.processes()).isZero());
        Incident hang = r.truth().incidents().stream().filter(i -> i.expect().equals(Incident.ALERT)).findFirst()
                .orElseThrow();
        assertThat(hang.maxLatencyMs()).isEqualTo(TraceImporter.GPU_HANG_DEADLINE_MS);
        assertThat(hang.note()).contains(TraceImporter.DEAD_RANK_NOTE);
    }

    @Test
    void shouldExpectNoAlarmOnUploadsAfterTrainingOrOnAnElasticRestart() throws IOException {
        ScenarioRecorder.Recording upload = TraceImporter.importTrace(read("proc-upload-healthy"),
                TraceImporter.Form.RDMA, 0, 0, 1, true);
        // the pods succeed after their uploads (158 s), not when training exits (96 s)
        JobRecord done = upload.jobs().stream().filter(j -> j.state().equals(JobRecord.SUCCEEDED)).findFirst()
                .orElseThrow();
        assertThat(done.updatedAt() - TraceImporter.EPOCH).isGreaterThan(158_000L);
        assertThat(samples(upload, "gpu-node-1", 110, 150)).allSatisfy(g -> assertThat(g.processes()).isZero());
        ScenarioRecorder.Recording elastic = TraceImporter.importTrace(read("proc-elastic-healthy"),
                TraceImporter.Form.RDMA, 0, 0, 1, true);
        for (ScenarioRecorder.Recording r : List.of(upload, elastic)) {
            assertThat(r.truth().incidents()).noneMatch(i -> i.expect().equals(Incident.ALERT));
        }
    }
}
