package io.rdmamon.detect;

import io.rdmamon.model.Alert;
import io.rdmamon.model.JobBandwidth;
import io.rdmamon.model.JobRecord;
import io.rdmamon.testing.TopologyHarness;
import io.rdmamon.testing.TrainingTraffic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * TCP_FALLBACK through the whole topology: 2 nodes × 2 eRDMA devices sampled at 1 Hz with one eth0 each; NCCL over
 * sockets is 2 GB/s each way on eth0 while the RDMA ports idle.
 */
class TcpFallbackDetectorTest {
    static final long T0 = 1_700_000_000_000L;
    static final long MIN = 60_000;
    static final List<String> NODES = List.of("n1", "n2");
    static final List<String> DEVICES = List.of("erdma_0", "erdma_1");
    static final double TCP_EACH_WAY = 2e9;
    static final long FOREVER = Long.MAX_VALUE;

    @TempDir
    Path stateDir;

    private final TrainingTraffic sim = new TrainingTraffic();
    private final List<TrainingTraffic.Event> extra = new ArrayList<>();

    private TrainingTraffic.Job runningJob(long trainsFrom, long trainsTo) {
        TrainingTraffic.Job job = sim.job("uid-a", NODES, DEVICES).trains(trainsFrom, trainsTo);
        sim.record(job, JobRecord.RUNNING, T0);
        return job;
    }

    private void overTcp(long from, long to) {
        NODES.forEach(n -> sim.hostBurst(n, from, to, TCP_EACH_WAY, TCP_EACH_WAY));
    }

    private List<Alert> run(long until) {
        return runTopology(until).alerts;
    }

    private TopologyHarness runTopology(long until) {
        List<TrainingTraffic.Event> events = new ArrayList<>(sim.run(T0, until));
        events.addAll(extra);
        events.sort(Comparator.comparingLong(TrainingTraffic.Event::ts).thenComparing(e -> e.job() == null));
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of())) {
            h.feed(events);
            return h;
        }
    }

    private static List<Alert> ofType(List<Alert> alerts, String type) {
        return alerts.stream().filter(a -> a.type().equals(type)).toList();
    }

    @Test
    void shouldFlagJobWithin3MinutesWhenNcclUsesTcpFromItsStart() {
        runningJob(Long.MAX_VALUE, Long.MAX_VALUE);
        overTcp(T0 + 45_000, FOREVER);

        List<Alert> alerts = run(T0 + 5 * MIN);

        assertThat(alerts).singleElement().satisfies(a -> {
            assertThat(a.type()).isEqualTo(Alert.TCP_FALLBACK);
            assertThat(a.status()).isEqualTo(Alert.FIRING);
            assertThat(a.detectedAt() - T0).isLessThanOrEqualTo(3 * MIN);
            assertThat(a.startsAt()).isBetween(T0 + 40_000, T0 + 60_000);
            assertThat(a.job()).isEqualTo("job-uid-a");
            assertThat(a.node()).isNull();
            assertThat(a.severity()).isEqualTo(Condition.WARNING);
            assertThat(a.labels()).containsEntry("uid", "uid-a").containsEntry("rdmaShare", "0.000")
                    .containsEntry("nodes", "2/2").containsEntry("rdmaPorts", "4");
            assertThat(a.summary()).contains("fallen back to TCP", "--device=aliyun/erdma=1", "libibverbs",
                    "librdmacm", "kubectl get node n1", "aliyun/erdma", "ibv_devinfo",
                    "NET/IB : Using [0]erdma_0:1/RoCE");
        });
    }

    @Test
    void shouldFlagJobThatWasOnTcpBeforeMonitoringSawItsFirstSample() {
        // rdmamon starts after the job: its very first host samples already carry the gradients, no background yet
        runningJob(Long.MAX_VALUE, Long.MAX_VALUE);
        overTcp(T0, FOREVER);

        assertThat(run(T0 + 3 * MIN)).singleElement().satisfies(a -> {
            assertThat(a.type()).isEqualTo(Alert.TCP_FALLBACK);
            assertThat(a.detectedAt() - T0).isLessThanOrEqualTo(90_000);
        });
    }

    @Test
    void shouldFlagJobWhoseTrainingOverTcpBeganLateInAWindow() {
        // the window [20 s, 40 s) holds NCCL init and 4 s of a fast start: not training-shaped yet, and busy: it must not
        // become the background the later windows have to rise five-fold above (real traces missed it so)
        // Running 12 s into the first window: the first window the job covers enough of is [20 s, 40 s)
        sim.record(sim.job("uid-a", NODES, DEVICES).trains(Long.MAX_VALUE, Long.MAX_VALUE), JobRecord.RUNNING,
                T0 + 12_000);
        NODES.forEach(n -> sim.hostBurst(n, T0 + 36_000, T0 + 40_000, 2 * TCP_EACH_WAY, 2 * TCP_EACH_WAY));
        overTcp(T0 + 40_000, FOREVER);

        assertThat(run(T0 + 4 * MIN)).singleElement().satisfies(a -> {
            assertThat(a.type()).isEqualTo(Alert.TCP_FALLBACK);
            assertThat(a.detectedAt() - (T0 + 36_000)).isLessThanOrEqualTo(90_000);
        });
    }

    @Test
    void shouldFlagJobOnTcpThatPausesEveryOtherWindow() {
        // 20 s of training over TCP, 20 s of evaluation, and so on: the windows of a pause say nothing either way
        runningJob(Long.MAX_VALUE, Long.MAX_VALUE);
        for (long from = T0 + 38_000; from < T0 + 4 * MIN; from += 40_000) {
            overTcp(from, from + 20_000);
        }

        assertThat(run(T0 + 4 * MIN)).singleElement().satisfies(a -> {
            assertThat(a.type()).isEqualTo(Alert.TCP_FALLBACK);
            assertThat(a.detectedAt() - (T0 + 38_000)).isLessThanOrEqualTo(130_000);
        });
    }

    @Test
    void shouldFlagSwitchToTcpMidJobAndResolveWhenRdmaCarriesTheTrafficAgain() {
        long switchAt = T0 + 5 * MIN;
        long backAt = T0 + 10 * MIN;
        runningJob(T0 + 10_000, Long.MAX_VALUE).pause(switchAt, backAt);
        overTcp(switchAt, backAt);

        List<Alert> fallback = ofType(run(T0 + 12 * MIN), Alert.TCP_FALLBACK);

        assertThat(fallback).extracting(Alert::status).containsExactly(Alert.FIRING, Alert.RESOLVED);
        assertThat(fallback.get(0).detectedAt() - switchAt).isBetween(0L, 3 * MIN);
        assertThat(fallback.get(0).startsAt()).isBetween(switchAt, switchAt + 20_000);
        assertThat(fallback.get(1).id()).isEqualTo(fallback.get(0).id());
        assertThat(fallback.get(1).endsAt()).isBetween(backAt - 20_000, backAt + 20_000);
    }

    @Test
    void shouldShowTheJobsHostBytesAndRdmaShareInItsBandwidthRecords() {
        long switchAt = T0 + 3 * MIN;
        runningJob(T0 + 10_000, Long.MAX_VALUE).pause(switchAt, Long.MAX_VALUE);
        overTcp(switchAt, FOREVER);

        List<JobBandwidth> windows = runTopology(T0 + 5 * MIN).bandwidth;

        List<JobBandwidth> overRdma = windows.stream()
                .filter(b -> b.windowStart() >= T0 + MIN && b.windowEnd() <= switchAt).toList();
        List<JobBandwidth> overTcp = windows.stream().filter(b -> b.windowStart() >= switchAt + 10_000).toList();
        assertThat(overRdma).isNotEmpty().allSatisfy(b -> {
            // two nodes' eth0 at their 2 MB/s background next to 4 ports at 10 GB/s bursts 40 % of the time
            assertThat(b.hostBytesPerSec()).isBetween(3.9e6, 4.1e6);
            assertThat(b.rdmaShare()).isGreaterThan(0.99);
        });
        assertThat(overTcp).isNotEmpty().allSatisfy(b -> {
            assertThat(b.hostBytesPerSec()).isBetween(7.9e9, 8.1e9);
            assertThat(b.rdmaShare()).isEqualTo(0.0);
        });
    }

    @Test
    void shouldStaySilentWhenRdmaJobAlsoLoadsDataAndWritesCheckpointsOverEth0() {
        long checkpoint = T0 + 4 * MIN;
        runningJob(T0 + 10_000, Long.MAX_VALUE).pause(checkpoint, checkpoint + 90_000);
        // the data loader reads shards (mostly rx) all along; the checkpoint writes (tx) while RDMA pauses
        NODES.forEach(n -> {
            sim.hostBurst(n, T0 + 10_000, checkpoint, 40e6, 1.5e9);
            sim.hostBurst(n, checkpoint, checkpoint + 90_000, 1.5e9, 5e6);
            sim.hostBurst(n, checkpoint + 90_000, FOREVER, 40e6, 1.5e9);
        });
        // and one node even moves symmetric TCP traffic next to the RDMA traffic (e.g. a parameter server)
        sim.hostBurst("n2", T0 + 7 * MIN, FOREVER, 1e9, 1e9);

        assertThat(ofType(run(T0 + 10 * MIN), Alert.TCP_FALLBACK)).isEmpty();
    }

    @Test
    void shouldStaySilentDuringNcclInitialisation() {
        // Running at T0; NCCL bootstraps over sockets, a 5 s RDMA burst, three minutes of setup, then training
        runningJob(T0 + 60_000, Long.MAX_VALUE).pause(T0 + 65_000, T0 + 245_000);
        overTcp(T0 + 50_000, T0 + 70_000);

        assertThat(ofType(run(T0 + 6 * MIN), Alert.TCP_FALLBACK)).isEmpty();
    }

    @Test
    void shouldStaySilentWhenJobHangsWithNoTrafficAnywhere() {
        runningJob(T0 + 10_000, T0 + 3 * MIN);

        List<Alert> alerts = run(T0 + 8 * MIN);

        assertThat(ofType(alerts, Alert.TCP_FALLBACK)).isEmpty();
        assertThat(ofType(alerts, Alert.STALLED_SYNC)).isNotEmpty();
    }

    @Test
    void shouldStaySilentForJobWithoutRdmaDevices() {
        NODES.forEach(n -> DEVICES.forEach(d -> sim.sparePort(n, d)));
        List<JobRecord.Rank> ranks = List.of(new JobRecord.Rank(0, "cpu-job-0", "n1", List.of()),
                new JobRecord.Rank(1, "cpu-job-1", "n2", List.of()));
        extra.add(new TrainingTraffic.Event(T0, null, null, new JobRecord(JobRecord.VERSION, "uid-cpu", "cpu-job",
                "team-a", JobRecord.RUNNING, T0, T0, 2, ranks, Map.of())));
        overTcp(T0 + 45_000, FOREVER);

        assertThat(run(T0 + 5 * MIN)).isEmpty();
    }

    @Test
    void shouldShareTheJobsUidWithItsLinkIdleAlertsSoTheyFoldIntoItWhileItFires() {
        runningJob(Long.MAX_VALUE, Long.MAX_VALUE);
        overTcp(T0 + 45_000, FOREVER);

        List<Alert> alerts = run(T0 + 11 * MIN);

        Alert fallback = ofType(alerts, Alert.TCP_FALLBACK).get(0);
        List<Alert> idle = ofType(alerts, Alert.LINK_IDLE);
        assertThat(ofType(alerts, Alert.TCP_FALLBACK)).extracting(Alert::status).containsExactly(Alert.FIRING);
        assertThat(idle).hasSize(4).allSatisfy(a -> {
            assertThat(a.labels()).containsEntry("uid", fallback.labels().get("uid"));
            assertThat(a.detectedAt()).isGreaterThan(fallback.detectedAt());
        });
    }
}
