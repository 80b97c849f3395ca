package io.rdmamon.collector.publish;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The collector's sink against a broker in a container (the Apache Kafka image), in addition to the in-JVM broker
 * tests; skipped where no Docker engine runs (as on the project's own build machines, so it has not been run there).
 */
@Testcontainers(disabledWithoutDocker = true)
class KafkaSampleSinkContainerTest {
    @Container
    static final KafkaContainer KAFKA = new KafkaContainer("apache/kafka:4.3.1");

    @Test
    void shouldDeliverRecordsInOrderToABrokerInAContainer(@TempDir Path spill) {
        String topic = "container-port-samples";
        try (KafkaSampleSink sink = new KafkaSampleSink(new PublishConfig(Map.of(
                PublishConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.getBootstrapServers(),
                PublishConfig.SPILL_PATH_CONFIG, spill.toString())), new SimpleMeterRegistry())) {
            for (int i = 0; i < 100; i++) {
                sink.publish(topic, "n1/mlx5_0/1", 1_000L + i, ("{\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8));
            }
        }
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                "bootstrap.servers", KAFKA.getBootstrapServers(), "group.id", "container-test",
                "auto.offset.reset", "earliest"), new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.currentTimeMillis() + 60_000;
            while (values.size() < 100 && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    values.add(new String(r.value(), StandardCharsets.UTF_8));
                }
            }
        }
        assertThat(values).hasSize(100).startsWith("{\"i\":0}").endsWith("{\"i\":99}");
    }
}
