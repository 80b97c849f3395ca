package io.rdmamon.detect;

import io.rdmamon.model.Alert;
import io.rdmamon.model.JobRecord;
import io.rdmamon.testing.TopologyHarness;
import io.rdmamon.testing.TrainingTraffic;
import io.rdmamon.testing.TrainingTraffic.Activity;
import io.rdmamon.testing.TrainingTraffic.GpuReading;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * STALLED_SYNC with the job's GPU samples (issue 44), through the whole topology: the job of {@link StallDetectorTest}
 * (2 nodes × 2 devices, one rank and one GPU per device), its GPUs reading as the table of real H100 readings
 * says for each phase. Each test names the phase; the network traffic is the same as without GPUs, so where the GPUs
 * must change nothing the alerts are compared with a run without them.
 */
class GpuStallDetectorTest {
    static final long T0 = StallDetectorTest.T0;
    static final List<String> NODES = StallDetectorTest.NODES;
    static final List<String> DEVICES = StallDetectorTest.DEVICES;
    /** A 12 s evaluation pass on every rank, learned in the warm-up (no alert), and a 40 s one later (one alert). */
    static final long EVAL = T0 + 40_000;
    static final long LONG_PAUSE = T0 + 150_000;

    @TempDir
    Path stateDir;

    /** A phase of the job: from {@code from} on (until the next one), which GPUs read what. */
    private record Phase(long from, TrainingTraffic.GpuPhases gpus) {
    }

    private final List<Phase> phases = new ArrayList<>();

    /**
     * The job trains from 10 s with its GPUs at 100 % / 3 %; a 12 s evaluation on every rank at 40 s (warm-up) and a
     * 40 s one at 150 s, the GPUs busy with memory traffic (the job learns a long quiet: without GPUs a later hang
     * waits for 1.7 × 40 s).
     */
    private TrainingTraffic.Job job(TrainingTraffic sim) {
        TrainingTraffic.Job job = sim.job("uid-a", NODES, DEVICES).withGpuIds().trains(T0 + 10_000, Long.MAX_VALUE)
                .pause(EVAL, EVAL + 12_000).pause(LONG_PAUSE, LONG_PAUSE + 40_000);
        sim.record(job, JobRecord.RUNNING, T0);
        return job;
    }

    {
        phase(T0, all(GpuReading.IDLE));
        phase(T0 + 10_000, all(GpuReading.TRAINING));
        phase(EVAL, all(GpuReading.EVALUATING));
        phase(EVAL + 12_000, all(GpuReading.TRAINING));
        phase(LONG_PAUSE, all(GpuReading.EVALUATING));
        phase(LONG_PAUSE + 40_000, all(GpuReading.TRAINING));
    }

    private void phase(long from, TrainingTraffic.GpuPhases gpus) {
        phases.add(new Phase(from, gpus));
    }

    private static TrainingTraffic.GpuPhases all(GpuReading reading) {
        return (node, gpu, t) -> reading;
    }

    /** Rank 0 (n1, GPU 0) reads {@code rank0}, every other rank {@code others}. */
    private static TrainingTraffic.GpuPhases rank0(GpuReading rank0, GpuReading others) {
        return (node, gpu, t) -> node.equals("n1") && gpu == 0 ? rank0 : others;
    }

    /** The GPU {@code gpu} of {@code node} (rank 2 × node + gpu) reads {@code one}, every other GPU {@code others}. */
    private static TrainingTraffic.GpuPhases one(String node, int gpu, GpuReading one, GpuReading others) {
        return (n, g, t) -> n.equals(node) && g == gpu ? one : others;
    }

    private TrainingTraffic.GpuPhases timeline() {
        return (node, gpu, t) -> {
            Phase now = null;
            for (Phase p : phases) {
                if (p.from() <= t && (now == null || p.from() >= now.from())) {
                    now = p;
                }
            }
            return now == null ? null : now.gpus().at(node, gpu, t);
        };
    }

    /** The alerts of a run to {@code until}: with the GPU samples, or the same traffic without them. */
    private List<Alert> run(long until, boolean withGpus, BiConsumer<TrainingTraffic, TrainingTraffic.Job> more) {
        TrainingTraffic sim = new TrainingTraffic();
        TrainingTraffic.Job job = job(sim);
        more.accept(sim, job);
        if (withGpus) {
            sim.gpus(job, timeline());
        }
        try (TopologyHarness h = new TopologyHarness(stateDir.resolve(withGpus ? "gpus" : "none"), T0, Map.of())) {
            h.feed(sim.run(T0, until));
            return h.alerts;
        }
    }

    private static List<Alert> firing(List<Alert> alerts) {
        return alerts.stream().filter(a -> a.status().equals(Alert.FIRING)).toList();
    }

    /** The pause at 150 s fires without GPU evidence (a quiet longer than any before): today's rule, as it was. */
    private static List<Alert> afterTheLongPause(List<Alert> alerts) {
        return alerts.stream().filter(a -> a.startsAt() > LONG_PAUSE + 10_000).toList();
    }

    @Test
    void shouldFlagAHangWhereEveryRankWaitsInACollectiveWithin5SecondsWhateverPausesCameBefore() {
        long hang = T0 + 300_000;
        phase(hang, all(GpuReading.IN_COLLECTIVE));
        List<Alert> alerts = afterTheLongPause(run(hang + 120_000, true, (sim, job) -> job.pause(hang, Long.MAX_VALUE)));

        assertThat(firing(alerts)).singleElement().satisfies(a -> {
            assertThat(a.type()).isEqualTo(Alert.STALLED_SYNC);
            assertThat(a.detectedAt() - hang).isBetween(3_000L, 5_000L);
            assertThat(a.startsAt()).isBetween(hang - 1_000, hang + 1_000);
            assertThat(a.labels()).containsEntry("evidence", GpuActivity.IN_COLLECTIVE).containsEntry("gpus", "4");
            assertThat(a.summary()).contains("waiting inside a collective");
        });
        // the network alone waits for 1.7 x the 40 s pause
        assertThat(firing(afterTheLongPause(run(hang + 120_000, false, (sim, job) -> job.pause(hang, Long.MAX_VALUE)))))
                .singleElement().satisfies(a -> assertThat(a.detectedAt() - hang).isGreaterThan(60_000L));
    }

    @Test
    void shouldStayWithTheLearnedRuleOnRank0OnlyEvaluationsAndCheckpoints() {
        // rank 0 evaluates (busy, with memory traffic) or writes a checkpoint (idle), the others wait in a barrier
        for (long at : new long[]{T0 + 250_000, T0 + 330_000}) {
            phase(at, rank0(GpuReading.EVALUATING, GpuReading.IN_COLLECTIVE));
            phase(at + 30_000, all(GpuReading.TRAINING));
        }
        for (long at : new long[]{T0 + 400_000, T0 + 480_000}) {
            phase(at, rank0(GpuReading.IDLE, GpuReading.IN_COLLECTIVE));
            phase(at + 30_000, all(GpuReading.TRAINING));
        }
        BiConsumer<TrainingTraffic, TrainingTraffic.Job> pauses = (sim, job) -> job.pause(T0 + 250_000, T0 + 280_000).pause(T0 + 330_000, T0 + 360_000)
                .pause(T0 + 400_000, T0 + 430_000).pause(T0 + 480_000, T0 + 510_000);
        List<Alert> withGpus = run(T0 + 560_000, true, pauses);

        assertThat(afterTheLongPause(withGpus)).isEmpty();
        assertThat(withGpus).extracting(Alert::startsAt, Alert::status)
                .isEqualTo(run(T0 + 560_000, false, pauses).stream()
                        .map(a -> tuple(a.startsAt(), a.status())).toList());
    }

    @Test
    void shouldLeaveAHangWithARankStoppedOutsideTheGpuToTheLearnedRule() {
        long hang = T0 + 300_000;
        phase(hang, rank0(GpuReading.IDLE, GpuReading.IN_COLLECTIVE));
        List<Alert> withGpus = run(hang + 120_000, true, (sim, job) -> job.pause(hang, Long.MAX_VALUE));

        assertThat(firing(afterTheLongPause(withGpus))).singleElement().satisfies(a -> {
            assertThat(a.labels()).doesNotContainKey("evidence");
            assertThat(a.detectedAt() - hang).isGreaterThan(60_000L);
        });
        assertThat(withGpus).isEqualTo(run(hang + 120_000, false, (sim, job) -> job.pause(hang, Long.MAX_VALUE)));
    }

    private static List<Alert> firing(List<Alert> alerts, String type) {
        return firing(alerts).stream().filter(a -> a.type().equals(type)).toList();
    }

    private static final GpuReading WAITING = GpuReading.IN_COLLECTIVE.with(Activity.IN_COLLECTIVE);
    private static final GpuReading IDLE = GpuReading.IDLE;

    @Test
    void shouldFlagARankThatDiedWhileTheOthersWaitWithin5SecondsNamingIt() {
        long hang = T0 + 300_000;
        phase(hang, one("n2", 1, GpuReading.NO_PROCESS, WAITING));
        List<Alert> alerts = afterTheLongPause(run(hang + 120_000, true, (sim, job) -> job.pause(hang, Long.MAX_VALUE)));

        assertThat(firing(alerts)).singleElement().satisfies(a -> {
            assertThat(a.type()).isEqualTo(Alert.STALLED_SYNC);
            assertThat(a.severity()).isEqualTo("critical");
            assertThat(a.detectedAt() - hang).isBetween(3_000L, 5_000L);
            assertThat(a.startsAt()).isBetween(hang - 1_000, hang + 1_000);
            assertThat(a.labels()).containsEntry("evidence", GpuActivity.RANK_DIED).containsEntry("stuckRanks", "3")
                    .containsEntry("stuckGpus", "n2/1").containsEntry("waitingGpus", "3").containsEntry("gpus", "4");
            assertThat(a.summary()).contains("rank 3 (pod uid-a-worker-3, node n2, GPU 1 GPU-n2-1) has no compute "
                    + "process (its rank died)", "the other 3 GPUs of the job have been busy with no memory traffic");
        });
    }

    @Test
    void shouldFlagTwoDeadRanksWhileTheOthersWaitAndNameBoth() {
        long hang = T0 + 300_000;
        phase(hang, (node, gpu, t) -> gpu == 0 ? GpuReading.NO_PROCESS : WAITING);
        List<Alert> alerts = afterTheLongPause(run(hang + 60_000, true, (sim, job) -> job.pause(hang, Long.MAX_VALUE)));

        assertThat(firing(alerts)).singleElement().satisfies(a -> {
            assertThat(a.detectedAt() - hang).isBetween(3_000L, 5_000L);
            assertThat(a.labels()).containsEntry("evidence", GpuActivity.RANK_DIED)
                    .containsEntry("stuckRanks", "0,2");
        });
    }

    @Test
    void shouldFlagALostGpuWhileTheOthersWaitAsAStallAndAsGpuLost() {
        long hang = T0 + 300_000;
        phase(hang, one("n1", 1, GpuReading.LOST, WAITING));
        List<Alert> alerts = afterTheLongPause(run(hang + 60_000, true, (sim, job) -> job.pause(hang, Long.MAX_VALUE)));

        assertThat(firing(alerts, Alert.STALLED_SYNC)).singleElement().satisfies(a -> {
            assertThat(a.detectedAt() - hang).isBetween(3_000L, 5_000L);
            assertThat(a.labels()).containsEntry("evidence", GpuActivity.RANK_DIED).containsEntry("stuckRanks", "1");
            assertThat(a.summary()).contains("rank 1 (pod uid-a-worker-1, node n1, GPU 1 GPU-n1-1) is lost (its "
                    + "readings fail: GPU is lost)");
        });
        assertThat(firing(alerts, Alert.GPU_LOST)).singleElement().satisfies(a -> {
            assertThat(a.node()).isEqualTo("n1");
            assertThat(a.device()).isEqualTo("GPU-n1-1");
            assertThat(a.job()).isEqualTo("job-uid-a");
            assertThat(a.severity()).isEqualTo("critical");
            assertThat(a.detectedAt() - hang).isBetween(2_000L, 4_000L);
        });
    }

    @Test
    void shouldFlagARankStoppedOutsideTheCollectiveWithin5SecondsSayingSo() {
        long hang = T0 + 300_000;
        phase(hang, rank0(IDLE.with(Activity.STOPPED), WAITING));
        List<Alert> alerts = afterTheLongPause(run(hang + 60_000, true, (sim, job) -> job.pause(hang, Long.MAX_VALUE)));

        assertThat(firing(alerts)).singleElement().satisfies(a -> {
            assertThat(a.type()).isEqualTo(Alert.STALLED_SYNC);
            assertThat(a.detectedAt() - hang).isBetween(3_000L, 5_000L);
            assertThat(a.startsAt()).isBetween(hang - 1_000, hang + 1_000);
            assertThat(a.labels()).containsEntry("evidence", GpuActivity.RANK_STUCK).containsEntry("stuckRanks", "0")
                    .containsEntry("stuckGpus", "n1/0");
            assertThat(a.summary()).contains("rank 0 (pod uid-a-worker-0, node n1, GPU 0 GPU-n1-0) is stuck outside "
                    + "the collective: stopped (state T)");
        });
    }

    @Test
    void shouldFlagARankBlockedOnAReadThatNeverReturnsOrAsleepWithoutProgress() {
        long hang = T0 + 300_000;
        phase(hang, rank0(IDLE.with(Activity.BLOCKED_IN_IO), WAITING));
        long later = T0 + 400_000;
        phase(later - 20_000, all(GpuReading.TRAINING));
        phase(later, one("n2", 0, IDLE.with(Activity.LOADER_WORKERS_IDLE), WAITING));
        List<Alert> alerts = afterTheLongPause(run(later + 60_000, true, (sim, job) -> job.pause(hang, later - 20_000)
                .pause(later, Long.MAX_VALUE)));

        assertThat(firing(alerts)).hasSize(2).satisfiesExactly(a -> {
            assertThat(a.detectedAt() - hang).isBetween(3_000L, 5_000L);
            assertThat(a.labels()).containsEntry("evidence", GpuActivity.RANK_STUCK).containsEntry("stuckRanks", "0");
            assertThat(a.summary()).contains("blocked in I/O (state D, 0.00 cores, no bytes read or written)");
        }, a -> {
            assertThat(a.detectedAt() - later).isBetween(3_000L, 5_000L);
            assertThat(a.labels()).containsEntry("evidence", GpuActivity.RANK_STUCK).containsEntry("stuckRanks", "2");
            assertThat(a.summary()).contains("sleeping without progress (state S, 0.03 cores");
        });
    }

    @Test
    void shouldStayWithTheLearnedRuleOnRank0AtWorkOrASlowLoaderStillReading() {
        // rank 0 evaluates (1.0 cores, memory traffic), writes a checkpoint (551 MB/s), or its loader reads 12.7 MB/s
        // at 0.06 cores; the others wait in a barrier; and a rank whose collector cannot read the byte counters
        GpuReading[] rank0 = {GpuReading.EVALUATING.with(Activity.EVALUATING), IDLE.with(Activity.CHECKPOINT),
                IDLE.with(Activity.SLOW_LOADER), IDLE.with(Activity.BLOCKED.withoutBytes())};
        BiConsumer<TrainingTraffic, TrainingTraffic.Job> pauses = (sim, job) -> { };
        for (int i = 0; i < rank0.length; i++) {
            long at = T0 + 250_000 + i * 80_000L;
            phase(at, rank0(rank0[i], WAITING));
            phase(at + 30_000, all(GpuReading.TRAINING.with(Activity.TRAINING)));
            pauses = pauses.andThen((sim, job) -> job.pause(at, at + 30_000));
        }
        List<Alert> withGpus = run(T0 + 600_000, true, pauses);

        assertThat(afterTheLongPause(withGpus)).isEmpty();
        assertThat(withGpus).extracting(Alert::startsAt, Alert::status)
                .isEqualTo(run(T0 + 600_000, false, pauses).stream()
                        .map(a -> tuple(a.startsAt(), a.status())).toList());
    }

    @Test
    void shouldLeaveEveryRankIdleWithNoCollectiveWaitToTheLearnedRule() {
        // a loader stall on every rank, none of them waiting: the GPUs say nothing, as without them
        long stall = T0 + 300_000;
        phase(stall, all(IDLE.with(Activity.LOADER_WORKERS_IDLE)));
        BiConsumer<TrainingTraffic, TrainingTraffic.Job> hang = (sim, job) -> job.pause(stall, Long.MAX_VALUE);
        assertThat(run(stall + 120_000, true, hang)).isEqualTo(run(stall + 120_000, false, hang));
    }

    @Test
    void shouldRaiseNoAlarmWhenTheProcessesExitAndASecondRunFollowsInTheSamePods() {
        // two runs chained (or an elastic restart): every GPU empty for 10 s, then 60 s of setup before the
        // second run's traffic; 90 s of quiet, which the network alone calls a stall (1.7 x its 40 s pause)
        long end = T0 + 300_000;
        phase(end, all(GpuReading.NO_PROCESS));
        phase(end + 10_000, all(IDLE));
        phase(end + 30_000, all(GpuReading.EVALUATING));
        phase(end + 90_000, all(GpuReading.TRAINING));
        BiConsumer<TrainingTraffic, TrainingTraffic.Job> restart = (sim, job) -> job.pause(end, end + 90_000);

        assertThat(afterTheLongPause(run(end + 200_000, true, restart))).isEmpty();
        assertThat(firing(afterTheLongPause(run(end + 200_000, false, restart)))).singleElement()
                .satisfies(a -> assertThat(a.labels()).doesNotContainKey("evidence"));
    }

    @Test
    void shouldStillFlagARestartedRunWhoseRanksHangInACollective() {
        // the ranks exit and come back in the same pods (the learned rule is held), then hang in their first
        // collective: the GPUs still tell, 3-5 s after the wait began
        long end = T0 + 300_000;
        long hang = end + 20_000;
        phase(end, all(GpuReading.NO_PROCESS));
        phase(end + 10_000, all(IDLE));
        phase(hang, all(WAITING));
        List<Alert> alerts = afterTheLongPause(run(hang + 60_000, true, (sim, job) -> job.pause(end, Long.MAX_VALUE)));

        assertThat(firing(alerts)).singleElement().satisfies(a -> {
            assertThat(a.labels()).containsEntry("evidence", GpuActivity.IN_COLLECTIVE);
            assertThat(a.detectedAt() - hang).isBetween(3_000L, 5_000L);
        });
    }

    @Test
    void shouldRaiseNoAlarmOnAnUploadAfterTraining() {
        // torchrun train.py && python upload.py: GPUs empty, RDMA quiet, eth0 busy for 4 min, then the pod ends
        long end = T0 + 300_000;
        phase(end, all(GpuReading.NO_PROCESS));
        List<Alert> alerts = run(end + 400_000, true, (sim, job) -> {
            job.pause(end, Long.MAX_VALUE);
            NODES.forEach(n -> sim.hostBurst(n, end + 2_000, end + 240_000, 200e6, 2e6));
            sim.record(job, JobRecord.SUCCEEDED, end + 245_000);
        });
        assertThat(afterTheLongPause(alerts)).isEmpty();
    }

    @Test
    void shouldWarnOfIdleGpusWhenNothingFollowsTheProcessesFor5Minutes() {
        long crash = T0 + 300_000;
        phase(crash, all(GpuReading.NO_PROCESS));
        long failed = crash + 400_000;
        List<Alert> alerts = afterTheLongPause(run(crash + 450_000, true, (sim, job) -> sim.record(
                job.pause(crash, Long.MAX_VALUE), JobRecord.FAILED, failed)));

        assertThat(alerts).extracting(Alert::type, Alert::status)
                .containsExactly(tuple(Alert.GPU_IDLE, Alert.FIRING), tuple(Alert.GPU_IDLE, Alert.RESOLVED));
        assertThat(alerts.get(0)).satisfies(a -> {
            assertThat(a.severity()).isEqualTo("warning");
            assertThat(a.job()).isEqualTo("job-uid-a");
            assertThat(a.startsAt()).isBetween(crash, crash + 1_000);
            assertThat(a.detectedAt() - crash).isBetween(300_000L, 302_000L);
            assertThat(a.summary()).contains("none of the GPUs it used has had a compute process for 5 min");
        });
        assertThat(alerts.get(1).endsAt()).isEqualTo(failed);
    }

    @Test
    void shouldResolveIdleGpusWhenAProcessComesBack() {
        long end = T0 + 300_000;
        phase(end, all(GpuReading.NO_PROCESS));
        long back = end + 360_000;
        phase(back, all(GpuReading.TRAINING));
        List<Alert> alerts = afterTheLongPause(run(back + 60_000, true, (sim, job) -> job.pause(end, back)));

        assertThat(alerts).extracting(Alert::type, Alert::status)
                .containsExactly(tuple(Alert.GPU_IDLE, Alert.FIRING), tuple(Alert.GPU_IDLE, Alert.RESOLVED));
        assertThat(alerts.get(1).endsAt()).isBetween(back, back + 1_000);
    }

    @Test
    void shouldReportALostGpuThatNoJobHoldsAsAWarning() {
        long end = T0 + 250_000;
        long lost = T0 + 300_000;
        phase(end, all(GpuReading.NO_PROCESS));
        phase(lost, one("n1", 0, GpuReading.LOST, GpuReading.NO_PROCESS));
        List<Alert> alerts = run(lost + 30_000, true, (sim, job) -> sim.record(job.pause(end, Long.MAX_VALUE),
                JobRecord.SUCCEEDED, end + 3_000));

        assertThat(firing(alerts, Alert.GPU_LOST)).singleElement().satisfies(a -> {
            assertThat(a.severity()).isEqualTo("warning");
            assertThat(a.job()).isNull();
            assertThat(a.node()).isEqualTo("n1");
            assertThat(a.labels()).doesNotContainKeys("jobs", "uid");
            assertThat(a.summary()).contains("No Running job holds it");
        });
    }

    @Test
    void shouldReportAGpuWhoseReadingsTurnToErrorsUntilTheyComeBack() {
        long lost = T0 + 300_000;
        phase(lost, one("n2", 0, GpuReading.LOST, GpuReading.TRAINING));
        phase(lost + 30_000, all(GpuReading.TRAINING));
        List<Alert> alerts = run(lost + 60_000, true, (sim, job) -> { });

        assertThat(alerts).filteredOn(a -> a.type().equals(Alert.GPU_LOST)).extracting(Alert::status)
                .containsExactly(Alert.FIRING, Alert.RESOLVED);
        assertThat(alerts).filteredOn(a -> a.type().equals(Alert.GPU_LOST)).first().satisfies(a -> {
            assertThat(a.node()).isEqualTo("n2");
            assertThat(a.device()).isEqualTo("GPU-n2-0");
            assertThat(a.startsAt()).isBetween(lost, lost + 1_000);
            assertThat(a.detectedAt() - lost).isBetween(2_000L, 4_000L);
            assertThat(a.labels()).containsEntry("gpu", "0").containsEntry("error", "GPU is lost")
                    .containsEntry("jobs", "team-a/job-uid-a").containsEntry("ranks", "job-uid-a:2")
                    .containsEntry("uid", "uid-a");
            assertThat(a.summary()).contains("GPU 0 (GPU-n2-0) of node n2", "GPU is lost", "Held by team-a/job-uid-a");
        });
        assertThat(alerts).filteredOn(a -> a.type().equals(Alert.GPU_LOST)).last()
                .satisfies(a -> assertThat(a.endsAt()).isBetween(lost + 30_000, lost + 31_000));
        assertThat(afterTheLongPause(alerts)).filteredOn(a -> a.type().equals(Alert.STALLED_SYNC)).isEmpty();
    }

    @Test
    void shouldNotFlagAJobThatEndedNormally() {
        long end = T0 + 300_000;
        phase(end, all(GpuReading.NO_PROCESS));
        // the importer's and jobs watch's Succeeded come about 3 s after the processes exit
        List<Alert> alerts = run(end + 120_000, true, (sim, job) -> sim.record(job.pause(end, Long.MAX_VALUE),
                JobRecord.SUCCEEDED, end + 3_000));
        assertThat(afterTheLongPause(alerts)).isEmpty();
    }
}
