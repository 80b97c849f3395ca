package io.rdmamon.jobs;

import io.rdmamon.model.GpuSample;
import io.rdmamon.model.JobBandwidth;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.LinkHealth;
import io.rdmamon.streams.StreamsAppConfig;
import io.rdmamon.testing.TopologyHarness;
import io.rdmamon.testing.TrainingTraffic;
import io.rdmamon.testing.TrainingTraffic.Event;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The versioned job-assignment join, the shared-device rule and job bandwidth figures. */
class JobAssignmentsTest {
    static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path stateDir;

    private final TrainingTraffic sim = new TrainingTraffic();

    /** The samples of [T0, T0 + 10 s) first, then the job record with updatedAt T0 + 500, then the rest. */
    private List<Event> metadataArrivesLate(TrainingTraffic.Job job) {
        List<Event> samples = sim.run(T0, T0 + 20_000);
        List<Event> out = new ArrayList<>(samples.stream().filter(e -> e.ts() <= T0 + 1_000).toList());
        out.add(new Event(T0 + 500, null, null, job.record(JobRecord.RUNNING, T0 + 500)));
        out.addAll(samples.stream().filter(e -> e.ts() > T0 + 1_000).toList());
        return out;
    }

    /** The job of each link-health record of the job's port, by sample time. */
    private Map<Long, String> jobBySampleTime(List<Event> events) {
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of(
                StreamsAppConfig.LINK_HEALTH_INTERVAL_CONFIG, 1_000))) {
            h.feed(events);
            Map<Long, String> out = new java.util.TreeMap<>();
            h.linkHealth.forEach(l -> out.put(l.ts(), String.valueOf(l.job())));
            return out;
        }
    }

    @Test
    void shouldGiveEachGpuSampleToTheJobsWhoseRanksHoldTheGpu() {
        // n1 runs two jobs, one GPU each (ranks[].gpus); n2 one job whose rank does not say: it holds every GPU
        JobRecord a = new JobRecord(JobRecord.VERSION, "uid-a", "a", "team-a", JobRecord.RUNNING, T0, T0, 1,
                List.of(new JobRecord.Rank(0, "a-0", "n1", List.of(), null, null, List.of("GPU-a"))), Map.of());
        JobRecord b = new JobRecord(JobRecord.VERSION, "uid-b", "b", "team-a", JobRecord.RUNNING, T0, T0, 1,
                List.of(new JobRecord.Rank(0, "b-0", "n1", List.of(), null, null, List.of("GPU-b"))), Map.of());
        JobRecord c = new JobRecord(JobRecord.VERSION, "uid-c", "c", "team-a", JobRecord.RUNNING, T0, T0, 1,
                List.of(new JobRecord.Rank(0, "c-0", "n2", List.of())), Map.of());
        List<Event> events = new ArrayList<>(List.of(new Event(T0, null, null, a), new Event(T0, null, null, b),
                new Event(T0, null, null, c)));
        for (long t = T0 + 1_000; t <= T0 + 3_000; t += 1_000) {
            events.add(gpu("n1", 0, "GPU-a", t));
            events.add(gpu("n1", 1, "GPU-b", t));
            events.add(gpu("n2", 0, "GPU-c0", t));
            events.add(gpu("n2", 1, "GPU-c1", t));
        }
        Map<String, java.util.Set<String>> gpusByJob = new java.util.TreeMap<>();
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of())) {
            h.feed(events);
            JobEventBatchSerde serde = new JobEventBatchSerde();
            h.internalTopic(JobEvents.REPARTITION + "-repartition").forEach(r -> serde.deserializer()
                    .deserialize("", r.value()).events().stream().filter(e -> e.gpu() != null)
                    .forEach(e -> gpusByJob.computeIfAbsent(r.key(), k -> new java.util.TreeSet<>())
                            .add(e.gpu().uuid())));
        }
        assertThat(gpusByJob).isEqualTo(Map.of("uid-a", java.util.Set.of("GPU-a"), "uid-b",
                java.util.Set.of("GPU-b"), "uid-c", java.util.Set.of("GPU-c0", "GPU-c1")));
    }

    @Test
    void shouldGiveGpuSamplesToJobsWhoseRanksNameTheGpuAsTheKubeletDoes() {
        // a time-sliced replica of GPU-a, a MIG device of GPU-b, and the device plugin's index strategy for GPU-c
        JobRecord sliced = new JobRecord(JobRecord.VERSION, "uid-sliced", "s", "team-a", JobRecord.RUNNING, T0, T0, 1,
                List.of(new JobRecord.Rank(0, "s-0", "n1", List.of(), null, null, List.of("GPU-a::3"))), Map.of());
        JobRecord mig = new JobRecord(JobRecord.VERSION, "uid-mig", "m", "team-a", JobRecord.RUNNING, T0, T0, 1,
                List.of(new JobRecord.Rank(0, "m-0", "n1", List.of(), null, null, List.of("MIG-b2"))), Map.of());
        JobRecord index = new JobRecord(JobRecord.VERSION, "uid-index", "i", "team-a", JobRecord.RUNNING, T0, T0, 1,
                List.of(new JobRecord.Rank(0, "i-0", "n1", List.of(), null, null, List.of("2"))), Map.of());
        List<Event> events = new ArrayList<>(List.of(new Event(T0, null, null, sliced), new Event(T0, null, null, mig),
                new Event(T0, null, null, index)));
        for (long t = T0 + 1_000; t <= T0 + 3_000; t += 1_000) {
            events.add(gpu("n1", 0, "GPU-a", t));
            events.add(new Event(t, null, null, null, new GpuSample(GpuSample.VERSION, "n1", 1, "GPU-b", t, 1_000,
                    null, 0.0, 125.0, 1_980.0, 2, List.of("MIG-b1", "MIG-b2"), null, null, null, null, null)));
            events.add(gpu("n1", 2, "GPU-c", t));
        }
        Map<String, java.util.Set<String>> gpusByJob = new java.util.TreeMap<>();
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of())) {
            h.feed(events);
            JobEventBatchSerde serde = new JobEventBatchSerde();
            h.internalTopic(JobEvents.REPARTITION + "-repartition").forEach(r -> serde.deserializer()
                    .deserialize("", r.value()).events().stream().filter(e -> e.gpu() != null)
                    .forEach(e -> gpusByJob.computeIfAbsent(r.key(), k -> new java.util.TreeSet<>())
                            .add(e.gpu().uuid())));
        }
        assertThat(gpusByJob).isEqualTo(Map.of("uid-sliced", java.util.Set.of("GPU-a"), "uid-mig",
                java.util.Set.of("GPU-b"), "uid-index", java.util.Set.of("GPU-c")));
    }

    private static Event gpu(String node, int index, String uuid, long t) {
        return new Event(t, null, null, null, new GpuSample(GpuSample.VERSION, node, index, uuid, t, 1_000, 100.0,
                0.0, 125.0, 1_980.0, 1));
    }

    @Test
    void shouldJoinEachSampleWithTheJobThatHeldTheDeviceAtItsTimestamp() {
        TrainingTraffic.Job job = sim.job("uid-a", List.of("n1"), List.of("erdma_0"));
        List<Event> events = new ArrayList<>();
        events.add(new Event(T0 + 500, null, null, job.record(JobRecord.RUNNING, T0 + 500)));
        events.addAll(sim.run(T0, T0 + 5_001));
        events.add(new Event(T0 + 5_500, null, null, job.record(JobRecord.SUCCEEDED, T0 + 5_500)));
        events.addAll(sim.run(T0 + 5_000, T0 + 8_000));
        Map<Long, String> jobs = jobBySampleTime(events);
        assertThat(jobs.get(T0 + 1_000)).isEqualTo("uid-a");
        assertThat(jobs.get(T0 + 5_000)).isEqualTo("uid-a");
        assertThat(jobs.get(T0 + 6_000)).isEqualTo("null");
    }

    @Test
    void shouldLeaveSamplesProcessedBeforeTheirMetadataUnassignedAndJoinTheRest() {
        // no join grace: a sample is judged when it is processed; metadata that comes later applies from then on
        Map<Long, String> jobs = jobBySampleTime(metadataArrivesLate(sim.job("uid-a", List.of("n1"),
                List.of("erdma_0"))));
        assertThat(jobs.get(T0 + 1_000)).isEqualTo("null");
        assertThat(jobs.get(T0 + 2_000)).isEqualTo("uid-a");
    }

    @Test
    void shouldGiveASocketJobItsEth0TrafficJudgedBeforeItsHoldCame() {
        // a P16EN job's collectives go over eth0 (issue 38): its host samples stand as its ports. Its record comes
        // after 5 s of its samples, which carry the job's socket traffic: given to the job late, as port samples too
        List<String> nodes = List.of("n1", "n2");
        nodes.forEach(n -> sim.sparePort(n, "mlx5_0").hostBurst(n, T0 + 1_000, T0 + 5_000, 2e9, 2e9));
        List<JobRecord.Rank> ranks = List.of(new JobRecord.Rank(0, "s-worker-0", "n1", List.of("eth0")),
                new JobRecord.Rank(1, "s-worker-1", "n2", List.of("eth0")));
        JobRecord job = new JobRecord(JobRecord.VERSION, "uid-s", "s", "ml", JobRecord.RUNNING, T0 + 500, T0,
                ranks.size(), ranks, Map.of(SocketPorts.TRANSPORT_LABEL, SocketPorts.SOURCE));
        List<Event> samples = sim.run(T0, T0 + 60_000);
        List<Event> events = new ArrayList<>(samples.stream().filter(e -> e.ts() <= T0 + 5_000).toList());
        events.add(new Event(T0 + 500, null, null, job));
        events.addAll(samples.stream().filter(e -> e.ts() > T0 + 5_000).toList());
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of())) {
            h.feed(events);
            JobBandwidth first = h.bandwidth.stream().filter(b -> b.windowStart() == T0).findFirst().orElseThrow();
            // samples 1..5 s: 2 GB/s each way on both nodes from 2 s on; 6..9 s: the host's 1 MB/s each way
            assertThat(first.ranksReporting()).isEqualTo(2);
            assertThat(first.txBytesPerSec()).isCloseTo(2 * (4 * 2e9 + 5 * 1e6) / 9, within(1e6));
            assertThat(h.counter("rdmamon.streams.rejudged.samples")).isPositive();
        }
    }

    @Test
    void shouldSplitSharedDeviceEquallyAndMarkFiguresEstimated() {
        TrainingTraffic.Job a = sim.job("uid-a", List.of("n1", "n2"), List.of("erdma_0")).trains(T0, Long.MAX_VALUE)
                .iteration(1_000, 500, 8e9);
        TrainingTraffic.Job b = sim.job("uid-b", List.of("n1"), List.of("erdma_0")).trains(T0, Long.MAX_VALUE)
                .iteration(1_000, 250, 8e9);
        sim.record(a, JobRecord.RUNNING, T0).record(b, JobRecord.RUNNING, T0);
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of())) {
            h.feed(sim.run(T0, T0 + 60_000));
            JobBandwidth bwA = h.bandwidth.stream().filter(x -> x.uid().equals("uid-a")).skip(1).findFirst()
                    .orElseThrow();
            JobBandwidth bwB = h.bandwidth.stream().filter(x -> x.uid().equals("uid-b")).skip(1).findFirst()
                    .orElseThrow();
            // n1/erdma_0 carries 4 GB/s (a) + 2 GB/s (b) each way: each job is credited half of 6 GB/s
            assertThat(bwA.estimated()).isTrue();
            assertThat(bwA.txBytesPerSec()).isCloseTo(3e9 + 4e9, within(1e8));
            JobBandwidth.RankBandwidth sharedRank = bwA.ranks().get(0);
            JobBandwidth.RankBandwidth ownRank = bwA.ranks().get(1);
            assertThat(sharedRank.estimated()).isTrue();
            assertThat(ownRank.estimated()).isFalse();
            assertThat(sharedRank.share() + ownRank.share()).isCloseTo(1.0, within(1e-9));
            assertThat(bwB.estimated()).isTrue();
            assertThat(bwB.txBytesPerSec()).isCloseTo(3e9, within(1e8));
            assertThat(bwB.ranksReporting()).isEqualTo(1);

            LinkHealth shared = h.linkHealth.stream().filter(l -> l.node().equals("n1")).reduce((x, y) -> y)
                    .orElseThrow();
            assertThat(shared.sharedBy()).isEqualTo(2);
            assertThat(shared.job()).isEqualTo("uid-a");
        }
    }

    @Test
    void shouldStopAttributingSamplesWhenJobEnds() {
        TrainingTraffic.Job a = sim.job("uid-a", List.of("n1"), List.of("erdma_0")).trains(T0, T0 + 30_000);
        sim.record(a, JobRecord.RUNNING, T0).record(a, JobRecord.SUCCEEDED, T0 + 30_000);
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of())) {
            h.feed(sim.run(T0, T0 + 60_000));
            assertThat(h.linkHealth).filteredOn(l -> l.ts() < T0 + 30_000).extracting(LinkHealth::job)
                    .containsOnly("uid-a");
            assertThat(h.linkHealth).filteredOn(l -> l.ts() >= T0 + 30_000).extracting(LinkHealth::job)
                    .containsOnlyNulls();
            assertThat(h.bandwidth).extracting(JobBandwidth::windowStart).doesNotHaveDuplicates()
                    .allSatisfy(start -> assertThat(start).isLessThan(T0 + 30_000));
        }
    }
}
