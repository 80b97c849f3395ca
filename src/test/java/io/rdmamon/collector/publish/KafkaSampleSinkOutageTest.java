package io.rdmamon.collector.publish;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.testing.SharedKafka;
import io.rdmamon.testing.TopicContent;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.IntStream;

import static io.rdmamon.collector.publish.CrashingCollector.passOf;
import static io.rdmamon.collector.publish.KafkaSampleSinkTest.settings;
import static io.rdmamon.collector.publish.KafkaSampleSinkTest.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The broker goes away and comes back (same port, same data) while a collector keeps publishing: nothing blocks,
 * nothing is duplicated, nothing is reordered, and only what exceeds the bounds is dropped, oldest first.
 */
class KafkaSampleSinkOutageTest {
    private static final int KEYS = 8;
    private static final long INTERVAL_MS = 100;
    /**
     * A publish() that waited for Kafka would take max.block.ms (5 s here) or a reconnect. Far below that, but above
     * what a GC pause or a busy shared machine can add to a single call.
     */
    private static final long MAX_PUBLISH_NANOS = Duration.ofSeconds(1).toNanos();
    private static final long MEDIAN_PUBLISH_NANOS = Duration.ofMillis(2).toNanos();

    private static final String PAD = "x".repeat(400);

    private static RestartableCluster cluster;

    @TempDir
    Path spillDir;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<Long> publishNanos = new ArrayList<>();

    @BeforeAll
    static void startCluster() {
        cluster = RestartableCluster.start();
    }

    @AfterAll
    static void stopCluster() throws Exception {
        cluster.close();
    }

    @Test
    void shouldDeliverEveryRecordOnceAndInOrderPerKeyWhenTheBrokerRestarts() throws Exception {
        String topic = SharedKafka.uniqueTopic("outage");
        SharedKafka.createTopics(cluster.bootstrapServers(), 4, topic);
        Map<String, Object> settings = settings(cluster.bootstrapServers(), spillDir);
        settings.put(PublishConfig.MEMORY_BYTES_CONFIG, 64 * 1024L);
        settings.put(PublishConfig.IN_FLIGHT_BYTES_CONFIG, 8 * 1024L);
        int passes;
        try (KafkaSampleSink sink = new KafkaSampleSink(new PublishConfig(settings), registry)) {
            int pass = collect(sink, topic, 0, 10);
            cluster.stopBroker();
            pass = collect(sink, topic, pass, 40);
            assertThat(registry.get(PublishMetrics.SPILLED).counter().count())
                    .as("a 64 KiB memory bound is passed during the outage").isPositive();
            cluster.startBroker();
            passes = collect(sink, topic, pass, 10);
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> registry.get(PublishMetrics.BUFFERED_RECORDS).gauge().value() == 0);
        }

        assertEveryRecordOnceInOrder(topic, IntStream.range(0, passes).boxed().toList());
        assertThat(registry.get(PublishMetrics.DROPPED).counter().count()).isZero();
        assertPublishNeverWaited();
    }

    @Test
    void shouldKeepUnacknowledgedRecordsForTheNextStartWhenClosedDuringAnOutage() throws Exception {
        String topic = SharedKafka.uniqueTopic("outage-restart");
        SharedKafka.createTopics(cluster.bootstrapServers(), 4, topic);
        Map<String, Object> settings = settings(cluster.bootstrapServers(), spillDir);
        settings.put(PublishConfig.MEMORY_BYTES_CONFIG, 64 * 1024L);
        settings.put(PublishConfig.IN_FLIGHT_BYTES_CONFIG, 8 * 1024L);
        settings.put(PublishConfig.CLOSE_TIMEOUT_MS_CONFIG, 500L);
        int pass;
        try (KafkaSampleSink sink = new KafkaSampleSink(new PublishConfig(settings), registry)) {
            pass = collect(sink, topic, 0, 5);
            cluster.stopBroker();
            // in flight in the producer, in memory and in the spill file when the collector stops
            pass = collect(sink, topic, pass, 25);
        }
        assertThat(registry.find(PublishMetrics.BUFFERED_RECORDS).gauge()).as("gauges go with the sink").isNull();

        cluster.startBroker();
        SimpleMeterRegistry afterRestart = new SimpleMeterRegistry();
        int passes;
        try (KafkaSampleSink sink = new KafkaSampleSink(new PublishConfig(settings), afterRestart)) {
            passes = collect(sink, topic, pass, 5);
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> afterRestart.get(PublishMetrics.BUFFERED_RECORDS).gauge().value() == 0);
        }

        assertEveryRecordOnceInOrder(topic, IntStream.range(0, passes).boxed().toList());
        assertThat(registry.get(PublishMetrics.DROPPED).counter().count()).isZero();
    }

    @Test
    void shouldDropOldestFirstAndCountWhenTheOutageOutlastsTheBounds() throws Exception {
        String topic = SharedKafka.uniqueTopic("outage-bounded");
        SharedKafka.createTopics(cluster.bootstrapServers(), 4, topic);
        Map<String, Object> settings = settings(cluster.bootstrapServers(), spillDir);
        settings.put(PublishConfig.MEMORY_BYTES_CONFIG, 64 * 1024L);
        settings.put(PublishConfig.IN_FLIGHT_BYTES_CONFIG, 8 * 1024L);
        settings.put(PublishConfig.SPILL_BYTES_CONFIG, 64 * 1024L);
        // the sink starts while the broker is down: no metadata, so sends fail inside send() and are retried
        settings.put("kafka.max.block.ms", "5000");
        int passes = 100;
        cluster.stopBroker();
        try (KafkaSampleSink sink = new KafkaSampleSink(new PublishConfig(settings), registry)) {
            for (int pass = 0; pass < passes; pass++) {
                publishPass(sink, topic, pass);
            }
            assertThat(registry.get(PublishMetrics.DROPPED).counter().count())
                    .as("800 records of ~500 bytes do not fit in 64 KiB of memory + 64 KiB of spill").isPositive();
            cluster.startBroker();
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> registry.get(PublishMetrics.BUFFERED_RECORDS).gauge().value() == 0);
        }

        Map<String, List<String>> byKey = TopicContent.valuesByKey(TopicContent.readAll(cluster.bootstrapServers(),
                topic));
        TreeSet<Integer> received = new TreeSet<>();
        byKey.forEach((key, values) -> {
            List<Integer> passesOfKey = values.stream().map(CrashingCollector::passOf).toList();
            assertThat(passesOfKey).as("key %s in order, once", key).isSorted().doesNotHaveDuplicates();
            int k = Integer.parseInt(key.substring(key.indexOf('_') + 1, key.lastIndexOf('/')));
            passesOfKey.forEach(pass -> received.add(pass * KEYS + k));
        });
        List<Integer> missing = IntStream.range(0, passes * KEYS).filter(i -> !received.contains(i)).boxed().toList();
        assertThat((double) missing.size()).isEqualTo(registry.get(PublishMetrics.DROPPED).counter().count());
        assertThat(received).as("the newest records arrive").contains(passes * KEYS - 1);
        // Oldest first: every record newer than the newest dropped one arrives (that is how it is defined), and of
        // the older ones only the few the sender had claimed from the producer's window survive. Which ones those are
        // depends on when the sender thread got its turn (record 0, or the oldest left after a first run of drops).
        int newestDropped = missing.get(missing.size() - 1);
        assertThat(received.headSet(newestDropped))
                .as("records older than the newest dropped one that arrived: only those handed to the producer")
                .hasSizeLessThan(KEYS * 5);
        assertPublishNeverWaited();
    }

    private void assertPublishNeverWaited() {
        List<Long> sorted = publishNanos.stream().sorted().toList();
        assertThat(sorted.get(sorted.size() - 1)).as("slowest publish() in ns").isLessThan(MAX_PUBLISH_NANOS);
        assertThat(sorted.get(sorted.size() / 2)).as("median publish() in ns").isLessThan(MEDIAN_PUBLISH_NANOS);
    }

    /** Publishes {@code count} sampling passes at the collector's pace; returns the next pass number. */
    private int collect(KafkaSampleSink sink, String topic, int firstPass, int count) throws InterruptedException {
        for (int pass = firstPass; pass < firstPass + count; pass++) {
            publishPass(sink, topic, pass);
            Thread.sleep(INTERVAL_MS);
        }
        return firstPass + count;
    }

    private void publishPass(KafkaSampleSink sink, String topic, int pass) {
        for (int k = 0; k < KEYS; k++) {
            // about the size of a real port record (~450 bytes of JSON)
            byte[] value = utf8("{\"node\":\"n1\",\"port\":" + k + ",\"pass\":" + pass + ",\"pad\":\"" + PAD + "\"}");
            long start = System.nanoTime();
            sink.publish(topic, key(k), 1_700_000_000_000L + pass * INTERVAL_MS, value);
            publishNanos.add(System.nanoTime() - start);
        }
    }

    private void assertEveryRecordOnceInOrder(String topic, List<Integer> expectedPasses) {
        Map<String, List<String>> byKey = TopicContent.valuesByKey(TopicContent.readAll(cluster.bootstrapServers(),
                topic));
        assertThat(byKey).hasSize(KEYS);
        for (int k = 0; k < KEYS; k++) {
            assertThat(byKey.get(key(k)).stream().map(CrashingCollector::passOf).toList())
                    .as("key %s: every pass once, in order", key(k)).containsExactlyElementsOf(expectedPasses);
        }
    }

    private static String key(int k) {
        return "n1/mlx5_" + k + "/1";
    }

}
