package io.rdmamon.jobs;

import io.rdmamon.model.JobRecord;
import io.rdmamon.testing.TopologyHarness;
import io.rdmamon.testing.TrainingTraffic;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

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

    private List<JobEventBatch> batches(boolean hostsFirst) {
        TrainingTraffic sim = new TrainingTraffic();
        TrainingTraffic.Job job = sim.job("uid-a", List.of("n1", "n2"), List.of("erdma_0", "erdma_1"))
                .trains(T0, Long.MAX_VALUE);
        sim.record(job, JobRecord.RUNNING, T0);
        List<TrainingTraffic.Event> events = sim.run(T0, T0 + PASSES * 1_000L).stream()
                .sorted(Comparator.comparingLong(TrainingTraffic.Event::ts)
                        .thenComparing(e -> e.job() == null)
                        .thenComparing(e -> hostsFirst == (e.host() == null)))
                .toList();
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of())) {
            h.feed(events);
            JobEventBatchSerde serde = new JobEventBatchSerde();
            return h.internalTopic(JobEvents.REPARTITION + "-repartition").stream()
                    .map(TestRecord::value)
                    .map(bytes -> serde.deserializer().deserialize("", bytes))
                    .filter(b -> b.events().stream().allMatch(e -> e.lifecycle() == null))
                    .toList();
        }
    }

    private static long ports(JobEventBatch batch) {
        return batch.events().stream().filter(e -> e.port() != null).count();
    }

    private static long hosts(JobEventBatch batch) {
        return batch.events().stream().filter(e -> e.host() != null).count();
    }
}
