package io.rdmamon.jobs;

import io.rdmamon.model.JobRecord;
import io.rdmamon.streams.StreamsAppConfig;
import io.rdmamon.testing.TopologyHarness;
import io.rdmamon.testing.TrainingTraffic;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** What crosses {@code job-event-batches}: one batch per job and node pass, a node's host samples in it. */
class NodeTickBatcherTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final int PASSES = 30;

    @TempDir
    Path stateDir;

    /**
     * Both topics' records of one time come in either order; here each node's host sample comes before its port
     * samples, as Kafka Streams picks them when their times tie. The first pass after a start goes on sample by
     * sample (its size is not known yet), and the first host pass alone.
     */
    @Test
    void shouldSendANodesHostSamplesWithItsPortPass() {
        List<JobEventBatch> batches = batches(true);

        long withBoth = batches.stream().filter(b -> ports(b) == 2 && hosts(b) == 1).count();
        long hostsAlone = batches.stream().filter(b -> ports(b) == 0 && hosts(b) > 0).count();
        assertThat(withBoth).as("passes 2 to 29 of both nodes").isEqualTo(2L * (PASSES - 2));
        assertThat(hostsAlone).as("each node's first host pass").isEqualTo(2);
        assertThat(batches.stream().mapToLong(NodeTickBatcherTest::hosts).sum()).as("every host sample, once")
                .isEqualTo(2L * (PASSES - 1));
        assertThat(batches.stream().mapToLong(NodeTickBatcherTest::ports).sum()).as("every port sample, once")
                .isEqualTo(4L * (PASSES - 1));
    }

    /** A host sample that comes after its port pass was sent goes alone, and nothing is lost or repeated. */
    @Test
    void shouldSendAHostSampleThatComesAfterItsPortPassAlone() {
        List<JobEventBatch> batches = batches(false);

        assertThat(batches.stream().mapToLong(NodeTickBatcherTest::hosts).sum()).isEqualTo(2L * (PASSES - 1));
        assertThat(batches.stream().mapToLong(NodeTickBatcherTest::ports).sum()).isEqualTo(4L * (PASSES - 1));
        assertThat(batches.stream().filter(b -> ports(b) > 0 && hosts(b) > 0)).isEmpty();
    }

    /**
     * A backlog: the job's record comes after its first 10 s of samples, which are judged without the job and kept.
     * Its holds come one per device and node; the samples they cover reach the job side as the passes after them do,
     * one batch per node pass with the node's ports and host, not one per device (or per sample).
     */
    @Test
    void shouldSendANodesReJudgedSamplesAsOneBatchPerNodePass() {
        List<JobEventBatch> batches = batches(jobAfter10s(events(true)));

        Map<String, List<JobEventBatch>> byPass = batches.stream().collect(Collectors.groupingBy(
                NodeTickBatcherTest::pass, TreeMap::new, Collectors.toList()));
        assertThat(byPass).as("every pass of both nodes").hasSize(2 * (PASSES - 1));
        assertThat(byPass).allSatisfy((pass, ofPass) -> {
            assertThat(ofPass).as(pass).hasSize(1);
            assertThat(ports(ofPass.get(0))).as(pass).isEqualTo(2);
            assertThat(hosts(ofPass.get(0))).as(pass).isEqualTo(1);
        });
        assertThat(byPass.keySet()).as("re-judged passes among them").contains("n1@" + (T0 + 1_000),
                "n2@" + (T0 + 10_000));
    }

    /**
     * A collector that stamps each sample when it reads it: a pass's host interface at its time, then its NICs 11
     * and 29 ms on. They are one pass still: one batch per node and second, its ports and host in it, at the time of the
     * pass's first sample; nothing lost or repeated. With {@code streams.jobs.pass.spread.ms=0} (only samples of one
     * ts are a pass, as before) every sample goes alone.
     */
    @Test
    void shouldSendANodesSamplesOfOneIntervalAsOnePassWhateverTheirTimes() {
        List<TrainingTraffic.Event> events = events(true).stream().map(NodeTickBatcherTest::stampedWhenRead)
                .sorted(Comparator.comparingLong(TrainingTraffic.Event::ts)).toList();

        List<JobEventBatch> batches = batches(events, Map.of());

        long whole = batches.stream().filter(b -> ports(b) == 2 && hosts(b) == 1).count();
        assertThat(whole).as("passes 2 to 29 of both nodes, each one batch").isEqualTo(2L * (PASSES - 2));
        assertThat(batches).as("and each node's first pass, sample by sample").hasSize(2 * (PASSES - 2) + 2 * 3);
        assertThat(batches.stream().mapToLong(NodeTickBatcherTest::hosts).sum()).isEqualTo(2L * (PASSES - 1));
        assertThat(batches.stream().mapToLong(NodeTickBatcherTest::ports).sum()).isEqualTo(4L * (PASSES - 1));

        List<JobEventBatch> exact = batches(events, Map.of(StreamsAppConfig.PASS_SPREAD_CONFIG, 0));
        assertThat(exact).as("passes of one ts only: a batch per sample (each node's last host sample held for a port "
                + "pass of its time)").hasSize(2 * 3 * (PASSES - 1) - 2);
    }

    /** The event with its sample stamped when read: the host at the pass's time, erdma_0 11 ms and erdma_1 29 ms on. */
    private static TrainingTraffic.Event stampedWhenRead(TrainingTraffic.Event e) {
        if (e.port() != null) {
            long ts = e.port().ts() + (e.port().device().equals("erdma_0") ? 11 : 29);
            return new TrainingTraffic.Event(ts, e.port().withTs(ts), null, null);
        }
        if (e.host() != null) {
            long ts = e.host().ts();
            return new TrainingTraffic.Event(ts, null, e.host().withTs(ts), null);
        }
        return e;
    }

    /** As above, each sample stamped when read: a re-judged pass is one batch too, whatever its samples' times. */
    @Test
    void shouldSendANodesReJudgedSamplesStampedWhenReadAsOneBatchPerNodePass() {
        List<JobEventBatch> batches = batches(jobAfter10s(events(true).stream()
                .map(NodeTickBatcherTest::stampedWhenRead).sorted(Comparator.comparingLong(TrainingTraffic.Event::ts))
                .toList()));

        assertThat(batches).as("every pass of both nodes, one batch each").hasSize(2 * (PASSES - 1))
                .allSatisfy(b -> {
                    assertThat(ports(b)).as(pass(b)).isEqualTo(2);
                    assertThat(hosts(b)).as(pass(b)).isEqualTo(1);
                });
    }

    /** The events with the job's record after the first 10 passes, which are judged without the job. */
    private static List<TrainingTraffic.Event> jobAfter10s(List<TrainingTraffic.Event> inOrder) {
        List<TrainingTraffic.Event> events = new ArrayList<>(inOrder.stream()
                .filter(e -> e.job() == null && e.ts() < T0 + 10_500).toList());
        events.addAll(inOrder.stream().filter(e -> e.job() != null).toList());
        events.addAll(inOrder.stream().filter(e -> e.job() == null && e.ts() >= T0 + 10_500).toList());
        return events;
    }

    private List<JobEventBatch> batches(boolean hostsFirst) {
        return batches(events(hostsFirst));
    }

    private static List<TrainingTraffic.Event> events(boolean hostsFirst) {
        TrainingTraffic sim = new TrainingTraffic();
        TrainingTraffic.Job job = sim.job("uid-a", List.of("n1", "n2"), List.of("erdma_0", "erdma_1"))
                .trains(T0, Long.MAX_VALUE);
        sim.record(job, JobRecord.RUNNING, T0);
        return sim.run(T0, T0 + PASSES * 1_000L).stream()
                .sorted(Comparator.comparingLong(TrainingTraffic.Event::ts)
                        .thenComparing(e -> e.job() == null)
                        .thenComparing(e -> hostsFirst == (e.host() == null)))
                .toList();
    }

    private List<JobEventBatch> batches(List<TrainingTraffic.Event> events) {
        return batches(events, Map.of());
    }

    private List<JobEventBatch> batches(List<TrainingTraffic.Event> events, Map<String, Object> settings) {
        try (TopologyHarness h = new TopologyHarness(stateDir.resolve("app-" + settings.hashCode()), T0, settings)) {
            h.feed(events);
            JobEventBatchSerde serde = new JobEventBatchSerde();
            return h.internalTopic(JobEvents.REPARTITION + "-repartition").stream()
                    .map(TestRecord::value)
                    .map(bytes -> serde.deserializer().deserialize("", bytes))
                    .filter(b -> b.events().stream().allMatch(e -> e.lifecycle() == null))
                    .toList();
        }
    }

    /** The node and time of a batch's samples: {@code node@ts}. */
    private static String pass(JobEventBatch batch) {
        return batch.events().stream()
                .map(e -> e.port() != null ? e.port().traffic().node() + "@" + e.port().traffic().ts()
                        : e.host().node() + "@" + e.host().ts())
                .distinct().reduce((a, b) -> a + "," + b).orElseThrow();
    }

    private static long ports(JobEventBatch batch) {
        return batch.events().stream().filter(e -> e.port() != null).count();
    }

    private static long hosts(JobEventBatch batch) {
        return batch.events().stream().filter(e -> e.host() != null).count();
    }
}
