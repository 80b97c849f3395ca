package io.rdmamon.collector.publish;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.testing.SharedKafka;
import io.rdmamon.testing.TopicContent;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class KafkaSampleSinkTest {
    @TempDir
    Path spillDir;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    static Map<String, Object> settings(String bootstrap, Path spillDir) {
        Map<String, Object> settings = new HashMap<>();
        settings.put(PublishConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        settings.put(PublishConfig.SPILL_PATH_CONFIG, spillDir.toString());
        settings.put(PublishConfig.CLOSE_TIMEOUT_MS_CONFIG, 2_000L);
        return settings;
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldDeliverKeysValuesAndTimestampsInOrderPerKeyWhenBrokerIsUp() {
        String bootstrap = SharedKafka.bootstrapServers();
        String topic = SharedKafka.uniqueTopic("publish-roundtrip");
        SharedKafka.createTopics(bootstrap, 3, topic);
        List<String> keys = List.of("node-a/mlx5_0/1", "node-a/mlx5_1/1", "node-a/erdma_0/1", "node-b/mlx5_0/1");
        long t0 = 1_700_000_000_000L;
        try (KafkaSampleSink sink = new KafkaSampleSink(new PublishConfig(settings(bootstrap, spillDir)), registry)) {
            for (int i = 0; i < 250; i++) {
                for (String key : keys) {
                    sink.publish(topic, key, t0 + i * 100L, utf8(key + "#" + i));
                }
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> gauge(PublishMetrics.BUFFERED_RECORDS) == 0);
        }

        List<ConsumerRecord<String, byte[]>> records = TopicContent.readAll(bootstrap, topic);
        assertThat(records).hasSize(1_000);
        Map<String, List<String>> byKey = TopicContent.valuesByKey(records);
        assertThat(byKey.keySet()).containsExactlyInAnyOrderElementsOf(keys);
        for (String key : keys) {
            assertThat(byKey.get(key)).containsExactlyElementsOf(
                    IntStream.range(0, 250).mapToObj(i -> key + "#" + i).toList());
        }
        for (ConsumerRecord<String, byte[]> r : records) {
            int i = Integer.parseInt(new String(r.value(), StandardCharsets.UTF_8).split("#")[1]);
            assertThat(r.timestamp()).isEqualTo(t0 + i * 100L);
        }
        assertThat(registry.get(PublishMetrics.PUBLISHED).tag("topic", topic).counter().count()).isEqualTo(1_000);
        assertThat(registry.get(PublishMetrics.LATENCY).tag("topic", topic).timer().count()).isEqualTo(1_000);
        assertThat(registry.get(PublishMetrics.SPILLED).counter().count()).isZero();
        assertThat(registry.get(PublishMetrics.DROPPED).counter().count()).isZero();
    }

    @Test
    void shouldSkipCountAndGoOnWhenKafkaRefusesARecordForGood() {
        String bootstrap = SharedKafka.bootstrapServers();
        String topic = SharedKafka.uniqueTopic("publish-too-large");
        SharedKafka.createTopics(bootstrap, 1, topic);
        Map<String, Object> settings = settings(bootstrap, spillDir);
        settings.put("kafka.max.request.size", "10000");
        try (KafkaSampleSink sink = new KafkaSampleSink(new PublishConfig(settings), registry)) {
            sink.publish(topic, "k", 1L, utf8("before"));
            sink.publish(topic, "k", 2L, new byte[20_000]);
            sink.publish(topic, "k", 3L, utf8("after"));
            await().atMost(Duration.ofSeconds(30)).until(() -> gauge(PublishMetrics.BUFFERED_RECORDS) == 0);
        }

        List<String> values = new ArrayList<>();
        TopicContent.readAll(bootstrap, topic).forEach(r -> values.add(new String(r.value(), StandardCharsets.UTF_8)));
        assertThat(values).containsExactly("before", "after");
        assertThat(registry.get(PublishMetrics.ERRORS).tag("kind", PublishMetrics.KIND_REJECTED)
                .tag("error", "RecordTooLargeException").counter().count()).isEqualTo(1);
    }

    @Test
    void shouldSendRecordsLeftInTheSpillDirectoryFirstWhenStartedAgain() throws Exception {
        String topic = SharedKafka.uniqueTopic("publish-replay");
        Map<String, Object> unreachable = settings("127.0.0.1:" + Ports.closedPort(), spillDir);
        unreachable.put("kafka.max.block.ms", "500");
        unreachable.put(PublishConfig.CLOSE_TIMEOUT_MS_CONFIG, 500L);
        try (KafkaSampleSink sink = new KafkaSampleSink(new PublishConfig(unreachable), registry)) {
            for (int i = 0; i < 50; i++) {
                sink.publish(topic, "k" + (i % 2), i, utf8("first-run-" + i));
            }
        }
        assertThat(registry.get(PublishMetrics.SPILLED).counter().count()).isEqualTo(50);

        String bootstrap = SharedKafka.bootstrapServers();
        SharedKafka.createTopics(bootstrap, 2, topic);
        SimpleMeterRegistry second = new SimpleMeterRegistry();
        try (KafkaSampleSink sink = new KafkaSampleSink(new PublishConfig(settings(bootstrap, spillDir)), second)) {
            assertThat(second.get(PublishMetrics.BUFFERED_RECORDS).gauge().value()).isGreaterThanOrEqualTo(50);
            for (int i = 50; i < 60; i++) {
                sink.publish(topic, "k" + (i % 2), i, utf8("second-run-" + i));
            }
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> second.get(PublishMetrics.BUFFERED_RECORDS).gauge().value() == 0);
        }

        Map<String, List<String>> byKey = TopicContent.valuesByKey(TopicContent.readAll(bootstrap, topic));
        for (int k = 0; k < 2; k++) {
            int parity = k;
            assertThat(byKey.get("k" + k)).containsExactlyElementsOf(IntStream.range(0, 60).filter(i -> i % 2 == parity)
                    .mapToObj(i -> (i < 50 ? "first-run-" : "second-run-") + i).toList());
        }
    }

    @Test
    void shouldKeepPublishingFromMemoryWhenTheSpillDirectoryCannotBeUsed() throws Exception {
        String bootstrap = SharedKafka.bootstrapServers();
        String topic = SharedKafka.uniqueTopic("publish-no-spill");
        SharedKafka.createTopics(bootstrap, 1, topic);
        Path notADirectory = Files.writeString(spillDir.resolve("a-file"), "x");
        try (KafkaSampleSink sink = new KafkaSampleSink(new PublishConfig(settings(bootstrap,
                notADirectory.resolve("spill"))), registry)) {
            for (int i = 0; i < 10; i++) {
                sink.publish(topic, "k", i, utf8("v" + i));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> gauge(PublishMetrics.BUFFERED_RECORDS) == 0);
        }

        assertThat(TopicContent.valuesByKey(TopicContent.readAll(bootstrap, topic)).get("k"))
                .containsExactlyElementsOf(IntStream.range(0, 10).mapToObj(i -> "v" + i).toList());
    }

    private double gauge(String name) {
        return registry.get(name).gauge().value();
    }
}
