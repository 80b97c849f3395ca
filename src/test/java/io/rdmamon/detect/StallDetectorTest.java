package io.rdmamon.detect;

import io.rdmamon.model.Alert;
import io.rdmamon.model.JobRecord;
import io.rdmamon.testing.TopologyHarness;
import io.rdmamon.testing.TrainingTraffic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * STALLED_SYNC on simulated training traffic: 2 nodes × 2 eRDMA devices, ring all-reduce bursts of 400 ms every
 * second (sub-second gaps), sampled at 1 Hz, through the whole topology.
 */
class StallDetectorTest {
    static final long T0 = 1_700_000_000_000L;
    static final List<String> NODES = List.of("n1", "n2");
    static final List<String> DEVICES = List.of("erdma_0", "erdma_1");

    @TempDir
    Path stateDir;

    private final TrainingTraffic sim = new TrainingTraffic();

    private TrainingTraffic.Job trainingJob(String uid) {
        TrainingTraffic.Job job = sim.job(uid, NODES, DEVICES).trains(T0 + 10_000, Long.MAX_VALUE);
        sim.record(job, JobRecord.RUNNING, T0);
        return job;
    }

    private List<Alert> run(long until) {
        return run(until, Map.of());
    }

    private List<Alert> run(long until, Map<String, ?> overrides) {
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, overrides)) {
            h.feed(sim.run(T0, until));
            return h.alerts;
        }
    }

    @Test
    void shouldFlagStallWithin15SecondsWhenJobWithSubSecondGapsHangs() {
        long hang = T0 + 300_000;
        trainingJob("uid-a").pause(hang, hang + 60_000);
        List<Alert> alerts = run(hang + 120_000);

        List<Alert> stalls = alerts.stream().filter(a -> a.type().equals(Alert.STALLED_SYNC)).toList();
        assertThat(stalls).extracting(Alert::status).containsExactly(Alert.FIRING, Alert.RESOLVED);
        Alert firing = stalls.get(0);
        assertThat(firing.detectedAt() - hang).isBetween(5_000L, 15_000L);
        assertThat(firing.startsAt()).isBetween(hang - 1_000, hang + 1_000);
        assertThat(firing.job()).isEqualTo("job-uid-a");
        assertThat(firing.namespace()).isEqualTo("team-a");
        assertThat(firing.severity()).isEqualTo(Condition.CRITICAL);
        assertThat(firing.labels()).containsEntry("uid", "uid-a");
        Alert resolved = stalls.get(1);
        assertThat(resolved.id()).isEqualTo(firing.id());
        assertThat(resolved.endsAt()).isBetween(hang + 60_000, hang + 62_000);
        assertThat(alerts).extracting(Alert::type).containsOnly(Alert.STALLED_SYNC);
    }

    @Test
    void shouldNotFlagStallWhenJobIsStarting() {
        // Running at T0, a 5 s NCCL-init burst at 60 s, three minutes of setup, then training
        sim.record(sim.job("uid-a", NODES, DEVICES).trains(T0 + 60_000, Long.MAX_VALUE)
                .pause(T0 + 65_000, T0 + 245_000), JobRecord.RUNNING, T0);
        assertThat(run(T0 + 300_000)).isEmpty();
    }

    @Test
    void shouldNotFlagStallWhenCheckpointPausesRdmaAndHostTrafficRises() {
        // a checkpoint writes its shards to storage: host egress (tx) rises, not a symmetric exchange
        long checkpoint = T0 + 200_000;
        trainingJob("uid-a").pause(checkpoint, checkpoint + 90_000);
        NODES.forEach(n -> sim.hostBurst(n, checkpoint + 1_000, checkpoint + 89_000, 800e6, 1e6));
        assertThat(run(checkpoint + 150_000)).isEmpty();
    }

    @Test
    void shouldFlagStallWhenRdmaStaysQuietAfterCheckpointEnds() {
        long checkpoint = T0 + 200_000;
        trainingJob("uid-a").pause(checkpoint, Long.MAX_VALUE);
        NODES.forEach(n -> sim.hostBurst(n, checkpoint + 1_000, checkpoint + 60_000, 800e6, 1e6));
        List<Alert> stalls = run(checkpoint + 120_000);
        assertThat(stalls).singleElement().satisfies(a -> {
            assertThat(a.type()).isEqualTo(Alert.STALLED_SYNC);
            // the quiet clock restarted when the storage traffic fell
            assertThat(a.startsAt()).isBetween(checkpoint + 59_000, checkpoint + 61_000);
            assertThat(a.detectedAt() - a.startsAt()).isLessThanOrEqualTo(15_000);
        });
    }

    @Test
    void shouldNotFlagStallWhenJobEntersEvaluationPhase() {
        long eval = T0 + 200_000;
        // evaluation: small all-reduces of metrics, 5% of the training level, every 3 s
        trainingJob("uid-a").phase(eval, eval + 180_000, 0.05, 3_000, 300);
        assertThat(run(eval + 240_000)).isEmpty();
    }

    @Test
    void shouldStaySilentOnLaterPausesOnceTheJobResumedFromOneByItselfAndStillFlagAHangAfterThem() {
        // evaluation passes of 12 s at irregular times, as on the real eval-hang trace; then a hang
        TrainingTraffic.Job job = trainingJob("uid-a");
        long[] evals = {T0 + 150_000, T0 + 231_000, T0 + 322_000, T0 + 400_000};
        for (long eval : evals) {
            job.pause(eval, eval + 12_000);
        }
        long hang = T0 + 500_000;
        job.pause(hang, Long.MAX_VALUE);
        List<Alert> firing = run(hang + 60_000).stream().filter(a -> a.status().equals(Alert.FIRING)).toList();

        assertThat(firing).hasSize(2).allSatisfy(a -> assertThat(a.type()).isEqualTo(Alert.STALLED_SYNC));
        assertThat(firing.get(0).startsAt()).as("only the first pause fires").isBetween(evals[0] - 1_000,
                evals[0] + 1_000);
        assertThat(firing.get(0).summary()).contains("has not been quiet for more than 2 s before");
        assertThat(firing.get(1).startsAt()).isBetween(hang - 1_000, hang + 1_000);
        assertThat(firing.get(1).detectedAt() - hang).as("within twice the longest pause")
                .isBetween(12_000L, 24_000L);
        assertThat(firing.get(1).summary()).contains("longest quiet it resumed from by itself lasted 1");
    }

    @Test
    void shouldMeasureAPauseFromTheLastHostTrafficOnceTheJobMovedToTcp() {
        // a 12 s evaluation on RDMA, then at 250 s NCCL moves to eth0 for good, pauses 12 s there at 350 s, and hangs
        // at 450 s: RDMA is quiet from 250 s on, the pause on eth0 is one the job had made before
        movesToEth0At250sAndPausesThere(T0 + 350_000, T0 + 362_000, T0 + 450_000);
        List<Alert> stalls = run(T0 + 500_000).stream().filter(a -> a.status().equals(Alert.FIRING))
                .filter(a -> a.type().equals(Alert.STALLED_SYNC)).toList();

        assertThat(stalls).hasSize(2).satisfiesExactly(
                first -> assertThat(first.startsAt()).isBetween(T0 + 149_000, T0 + 151_000),
                hang -> {
                    assertThat(hang.startsAt()).isBetween(T0 + 448_000, T0 + 451_000);
                    assertThat(hang.detectedAt() - (T0 + 450_000)).as("within twice the 12 s pause")
                            .isLessThanOrEqualTo(24_000);
                });
    }

    /** A 12 s evaluation on RDMA at 150 s; from 250 s NCCL runs on eth0 until {@code end}, but for a pause. */
    private void movesToEth0At250sAndPausesThere(long pauseFrom, long pauseTo, long end) {
        trainingJob("uid-a").pause(T0 + 150_000, T0 + 162_000).pause(T0 + 250_000, Long.MAX_VALUE);
        NODES.forEach(n -> {
            sim.hostBurst(n, T0 + 250_000, pauseFrom, 1e9, 1e9);
            sim.hostBurst(n, pauseTo, end, 1e9, 1e9);
        });
    }

    @Test
    void shouldResolveAStallMeasuredOnEth0WhenTheJobsTrafficComesBackThere() {
        // on eth0 for good from 250 s; a 25 s pause there at 350 s is longer than 1.7 x the 12 s one on RDMA: it
        // fires, and resolves when eth0 carries the job again, as a pause on RDMA resolves when RDMA does
        movesToEth0At250sAndPausesThere(T0 + 350_000, T0 + 375_000, T0 + 500_000);
        List<Alert> stalls = run(T0 + 500_000).stream().filter(a -> a.type().equals(Alert.STALLED_SYNC))
                .filter(a -> a.startsAt() > T0 + 300_000).toList();

        assertThat(stalls).extracting(Alert::status).containsExactly(Alert.FIRING, Alert.RESOLVED);
        assertThat(stalls.get(1).endsAt()).isBetween(T0 + 375_000, T0 + 378_000);
    }

    @Test
    void shouldFlagAHangWithin8SecondsOnAJobThatNeverPaused() {
        long hang = T0 + 300_000;
        trainingJob("uid-a").pause(hang, Long.MAX_VALUE);
        assertThat(run(hang + 60_000)).singleElement()
                .satisfies(a -> assertThat(a.detectedAt() - hang).isBetween(5_000L, 7_000L));
    }

    @Test
    void shouldNotRepeatStallWhenPausesRecurAtTheirLearnedPeriod() {
        TrainingTraffic.Job job = trainingJob("uid-a");
        for (int i = 1; i <= 5; i++) {
            long start = T0 + i * 180_000;
            job.pause(start, start + 40_000);
        }
        List<Alert> firing = run(T0 + 6 * 180_000).stream().filter(a -> a.status().equals(Alert.FIRING)).toList();
        // the first pause teaches its length; later ones are expected
        assertThat(firing).singleElement().satisfies(a -> assertThat(a.startsAt()).isLessThan(T0 + 2 * 180_000));
    }

    @Test
    void shouldUseLearnedGapsWhenJobNormallyIdlesLongBetweenBursts() {
        // gradient accumulation: 2 s of all-reduce every 20 s (18 s quiet): the gaps set a threshold of 1.7 x 18 s
        long hang = T0 + 400_000;
        TrainingTraffic.Job job = sim.job("uid-a", NODES, DEVICES).trains(T0 + 10_000, hang).iteration(20_000,
                2_000, 10e9);
        sim.record(job, JobRecord.RUNNING, T0);
        List<Alert> alerts = run(hang + 120_000);
        assertThat(alerts).singleElement().satisfies(a -> {
            assertThat(a.type()).isEqualTo(Alert.STALLED_SYNC);
            assertThat(a.startsAt()).isGreaterThanOrEqualTo(hang - 20_000);
            assertThat(a.detectedAt() - a.startsAt()).isBetween(30_000L, 39_000L);
        });
    }

    @Test
    void shouldFlagAHangWithinTwiceTheLongestStallOfADataLoaderThatStallsAtIrregularTimes() {
        // stalls of 3 to 9 s, the first below the minimum threshold: each one bounds the next, whatever came first
        TrainingTraffic.Job job = trainingJob("uid-a");
        long[][] stalls = {{95_000, 4_400}, {130_000, 8_700}, {171_000, 3_200}, {190_000, 6_300},
                {226_000, 8_900}, {262_000, 3_600}, {300_000, 5_800}};
        for (long[] stall : stalls) {
            job.pause(T0 + stall[0], T0 + stall[0] + stall[1]);
        }
        long hang = T0 + 340_000;
        job.pause(hang, Long.MAX_VALUE);
        List<Alert> firing = run(hang + 60_000).stream().filter(a -> a.status().equals(Alert.FIRING)).toList();

        // the first stall falls in the warm-up; the 8.7 s one is longer than any before it and may fire
        assertThat(firing).allSatisfy(a -> assertThat(a.type()).isEqualTo(Alert.STALLED_SYNC))
                .filteredOn(a -> a.startsAt() > T0 + 140_000).singleElement().satisfies(a -> {
                    assertThat(a.startsAt()).isBetween(hang - 1_000, hang + 1_000);
                    assertThat(a.detectedAt() - hang).as("within 2 x 8.9 s + 3 s").isLessThanOrEqualTo(20_800L);
                    assertThat(a.labels()).containsKey("longestQuietAt");
                });
    }

    @Test
    void shouldStaySilentWhenAStallThatFiredAndResolvedRepeats() {
        // an FSDP job resumes from a 4.8 s data-loader stall, then from a 12 s one, which fires (longer than 1.7 x
        // 4.8 s) and resolves: the job resumed from it, so a repeat of it is its own; a hang later still fires
        TrainingTraffic.Job job = trainingJob("uid-a").pause(T0 + 100_000, T0 + 104_800)
                .pause(T0 + 200_000, T0 + 212_000).pause(T0 + 320_000, T0 + 332_000);
        long hang = T0 + 450_000;
        job.pause(hang, Long.MAX_VALUE);
        List<Alert> firing = run(hang + 60_000).stream().filter(a -> a.status().equals(Alert.FIRING)).toList();

        assertThat(firing).hasSize(2).satisfiesExactly(
                first -> assertThat(first.startsAt()).isBetween(T0 + 199_000, T0 + 201_000),
                second -> {
                    assertThat(second.startsAt()).isBetween(hang - 1_000, hang + 1_000);
                    assertThat(second.labels().get("longestQuietMs")).isNotEqualTo("none");
                    assertThat(Long.parseLong(second.labels().get("longestQuietMs"))).isBetween(11_000L, 13_000L);
                });
    }

    /**
     * Through the topology with n2's collector sampling 437 ms after n1's, and every sample delivered up to 1.5 s late
     * (seeded), as from a busy broker.
     */
    private List<Alert> firingWithSamplesLate(long until, long seed) {
        sim.samplingPhase("n2", 437);
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of())) {
            h.feed(TrainingTraffic.lateUpTo(sim.run(T0, until), 1_500, seed));
            return h.alerts.stream().filter(a -> a.status().equals(Alert.FIRING)).toList();
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void shouldStaySilentOnASecondEvaluationItResumedFromWhenSamplesArriveLate(long seed) {
        // a DDP job evaluates for 15 s on every rank, and again 85 s later: the first fires (longer than any quiet
        // before) and resolves, the second is one the job resumed from whatever order its samples came in; a hang
        // later is measured against the 15 s
        long hang = T0 + 400_000;
        trainingJob("uid-a").pause(T0 + 150_000, T0 + 165_000).pause(T0 + 250_000, T0 + 265_000)
                .pause(hang, Long.MAX_VALUE);
        List<Alert> firing = firingWithSamplesLate(hang + 60_000, seed);

        assertThat(firing).hasSize(2).allSatisfy(a -> assertThat(a.type()).isEqualTo(Alert.STALLED_SYNC))
                .satisfiesExactly(
                        eval -> assertThat(eval.startsAt()).isBetween(T0 + 149_000, T0 + 151_000),
                        stop -> {
                            assertThat(stop.startsAt()).isBetween(hang - 1_000, hang + 1_000);
                            assertThat(Long.parseLong(stop.labels().get("longestQuietMs"))).isBetween(14_000L,
                                    16_000L);
                            assertThat(stop.summary()).contains("longest quiet it resumed from by itself lasted 1");
                        });
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void shouldNameTheStallAJobResumedFromInItsHangAlertWhenSamplesArriveLate(long seed) {
        // an FSDP job resumes from a 4.8 s data-loader stall and from a 12 s one (which fires and resolves), then
        // hangs: its alert names the 12 s quiet, whatever order the samples came in
        long hang = T0 + 320_000;
        trainingJob("uid-a").pause(T0 + 100_000, T0 + 104_800).pause(T0 + 200_000, T0 + 212_000)
                .pause(hang, Long.MAX_VALUE);
        List<Alert> firing = firingWithSamplesLate(hang + 60_000, seed);

        assertThat(firing).hasSize(2).satisfiesExactly(
                stall -> assertThat(stall.startsAt()).isBetween(T0 + 199_000, T0 + 201_000),
                stop -> {
                    assertThat(stop.startsAt()).isBetween(hang - 1_000, hang + 1_000);
                    assertThat(Long.parseLong(stop.labels().get("longestQuietMs"))).isBetween(11_000L, 13_000L);
                    assertThat(stop.detectedAt() - hang).as("within 2 x 12 s").isLessThanOrEqualTo(24_000L);
                });
    }

    @Test
    void shouldReadASocketJobsQuietAgainstItsOwnRateBesideOtherTrafficOnEth0() {
        // a DDP job over sockets (ACS P16EN) at ~240 MB/s on eth0, which also carries 2 MB/s of logs and metrics and,
        // every 7 s, 3 s of data loading (6 MB/s in all): its 15 s evaluation fires and resolves, a 6 s stall 90 s
        // later is its own, a hang is flagged within 2 x 15 s + 3 s
        long hang = T0 + 350_000;
        TrainingTraffic.Job job = sim.job("uid-s", NODES, List.of("eth0")).overSockets()
                .iteration(1_000, 400, 300e6).trains(T0 + 10_000, hang).pause(T0 + 150_000, T0 + 165_000)
                .pause(T0 + 255_000, T0 + 261_000);
        sim.record(job, JobRecord.RUNNING, T0);
        for (long t = T0; t < hang + 60_000; t += 7_000) {
            long from = t;
            NODES.forEach(n -> sim.hostBurst(n, from, from + 3_000, 1e6, 5e6));
        }
        List<Alert> firing = run(hang + 60_000).stream().filter(a -> a.status().equals(Alert.FIRING)).toList();

        assertThat(firing).hasSize(2).allSatisfy(a -> assertThat(a.type()).isEqualTo(Alert.STALLED_SYNC))
                .satisfiesExactly(
                        eval -> assertThat(eval.startsAt()).isBetween(T0 + 149_000, T0 + 151_000),
                        stop -> {
                            assertThat(stop.startsAt()).isBetween(hang - 1_000, hang + 1_000);
                            assertThat(stop.detectedAt() - hang).isLessThanOrEqualTo(33_000L);
                            assertThat(Long.parseLong(stop.labels().get("longestQuietMs"))).isBetween(14_000L,
                                    17_000L);
                        });
    }

    @Test
    void shouldNotFlagStallWhenJobEnds() {
        long end = T0 + 300_000;
        TrainingTraffic.Job job = trainingJob("uid-a").pause(end, Long.MAX_VALUE);
        sim.record(job, JobRecord.SUCCEEDED, end + 4_000);
        assertThat(run(end + 120_000)).isEmpty();
    }

    @Test
    void shouldResolveOpenStallWhenHungJobIsKilled() {
        long hang = T0 + 300_000;
        TrainingTraffic.Job job = trainingJob("uid-a").pause(hang, Long.MAX_VALUE);
        sim.record(job, JobRecord.FAILED, hang + 60_000);
        List<Alert> alerts = run(hang + 120_000);
        assertThat(alerts).extracting(Alert::status).containsExactly(Alert.FIRING, Alert.RESOLVED);
        assertThat(alerts.get(1).endsAt()).isEqualTo(hang + 60_000);
    }

    @Test
    void shouldReportCollectorSilenceNotStallWhenNodeGoesSilentAsTrafficStops() {
        long crash = T0 + 300_000;
        trainingJob("uid-a").pause(crash, Long.MAX_VALUE);
        sim.silence("n2", crash, Long.MAX_VALUE);
        List<Alert> alerts = run(crash + 120_000);
        assertThat(alerts).extracting(Alert::type).containsExactly(Alert.COLLECTOR_SILENT);
        assertThat(alerts.get(0).node()).isEqualTo("n2");
    }

    @Test
    void shouldNotFlagStallFromEstimatesWhenDeviceIsSharedWithAnotherJob() {
        long hang = T0 + 300_000;
        trainingJob("uid-a").pause(hang, Long.MAX_VALUE);
        trainingJob("uid-b").pause(hang, Long.MAX_VALUE);
        assertThat(run(hang + 120_000)).isEmpty();
    }

    @Test
    void shouldStartOverWhenJobIsRestartedWithNewPods() {
        long hang = T0 + 300_000;
        TrainingTraffic.Job job = trainingJob("uid-a").pause(hang, hang + 100_000);
        // the operator restarts the hung job: new pods, a new NCCL init and warm-up with its own quiet start
        sim.record(new TrainingTraffic.Job("uid-a", List.of("n2", "n1"), DEVICES), JobRecord.RUNNING, hang + 30_000);
        List<Alert> alerts = run(hang + 200_000);
        assertThat(alerts).extracting(Alert::status).containsExactly(Alert.FIRING, Alert.RESOLVED);
        assertThat(alerts.get(1).endsAt()).isEqualTo(hang + 30_000);
    }
}
