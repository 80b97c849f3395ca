package io.rdmamon.detect;

import io.rdmamon.model.Alert;
import io.rdmamon.model.JobRecord;
import io.rdmamon.testing.TopologyHarness;
import io.rdmamon.testing.TrainingTraffic;
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
        TrainingTraffic.Job job = sim.job("uid-a", NODES, DEVICES).trains(T0 + 10_000, Long.MAX_VALUE)
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

    @Test
    void shouldFlagACrashWhoseProcessesAreGoneWithin8SecondsWhileTheJobIsStillRunning() {
        long crash = T0 + 300_000;
        phase(crash, all(GpuReading.NO_PROCESS));
        List<Alert> alerts = afterTheLongPause(run(crash + 120_000, true, (sim, job) -> job.pause(crash, Long.MAX_VALUE)));

        assertThat(firing(alerts)).singleElement().satisfies(a -> {
            assertThat(a.type()).isEqualTo(Alert.STALLED_SYNC);
            assertThat(a.detectedAt() - crash).isLessThanOrEqualTo(8_000L);
            assertThat(a.labels()).containsEntry("evidence", GpuActivity.PROCESSES_GONE);
            assertThat(a.summary()).contains("compute process");
        });
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
