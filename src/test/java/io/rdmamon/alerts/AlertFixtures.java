package io.rdmamon.alerts;

import io.rdmamon.model.Alert;
import io.rdmamon.model.Json;
import io.rdmamon.testing.SharedKafka;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Alerts, topics and configurations for the delivery tests, on the shared in-JVM broker. */
public final class AlertFixtures {
    static final long T0 = 1_767_225_600_000L; // 2026-01-01T00:00:00Z

    private AlertFixtures() {
    }

    static Alert firing(String id, String job) {
        return new Alert(Alert.VERSION, id, Alert.LINK_DEGRADED, Alert.FIRING, "warning", job, "team-a", "gpu-node-07",
                "erdma_0", 1, T0, T0 + 4_000, null, "erdma_0/1 on gpu-node-07: retransmits 40x peers",
                Map.of("rail", "3", "app.kubernetes.io/name", "trainer"));
    }

    public static Alert resolved(Alert firing) {
        return new Alert(firing.v(), firing.id(), firing.type(), Alert.RESOLVED, firing.severity(), firing.job(),
                firing.namespace(), firing.node(), firing.device(), firing.port(), firing.startsAt(),
                firing.detectedAt(), firing.startsAt() + 60_000, firing.summary(), firing.labels());
    }

    /** Each value an {@link Alert} (sent as its JSON, key = id) or a raw String (key "raw"). */
    public static void produce(String topic, Object... values) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
            for (Object value : values) {
                if (value instanceof Alert alert) {
                    producer.send(new ProducerRecord<>(topic, alert.id(), Json.toString(alert)));
                } else {
                    producer.send(new ProducerRecord<>(topic, "raw", (String) value));
                }
            }
            producer.flush();
        }
    }

    /** The alerts in one transaction, as the stream app writes them: a commit marker follows the last one. */
    static void produceInTransaction(String topic, Alert... alerts) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers(),
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "alerts-test-tx-" + topic,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
            producer.initTransactions();
            producer.beginTransaction();
            for (Alert alert : alerts) {
                producer.send(new ProducerRecord<>(topic, alert.id(), Json.toString(alert)));
            }
            producer.commitTransaction();
        }
    }

    /** Fresh topics and group for one test, fast retries; {@code overrides} may add receivers and change anything. */
    static Map<String, Object> settings(String alertsTopic, String deadLetterTopic, Map<String, Object> overrides) {
        Map<String, Object> settings = new HashMap<>();
        settings.put("kafka.bootstrap.servers", SharedKafka.bootstrapServers());
        settings.put(AlertsConfig.TOPIC_CONFIG, alertsTopic);
        settings.put(AlertsConfig.DEAD_LETTER_TOPIC_CONFIG, deadLetterTopic);
        settings.put(AlertsConfig.GROUP_ID_CONFIG, "g-" + alertsTopic);
        settings.put(AlertsConfig.RETRY_BACKOFF_INITIAL_MS_CONFIG, 50);
        settings.put(AlertsConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 400);
        settings.put(AlertsConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000);
        settings.putAll(overrides);
        return settings;
    }

    /** Reads {@code topic} from the beginning until {@code count} records arrived (or the timeout passed). */
    static List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int count, Duration timeout) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "reader-" + topic + "-" + System.nanoTime(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName()))) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (out.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(100)).forEach(out::add);
            }
        }
        return out;
    }

    static String header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
