package io.rdmamon.replay;

import com.fasterxml.jackson.databind.JsonNode;
import io.rdmamon.model.Json;
import io.rdmamon.model.NodePartitioner;
import io.rdmamon.testing.SharedKafka;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** A recording published to a real broker as its producers would have: keys, node partitions, shifted times. */
class RecordingPublisherTest {
    private static final long SHIFT = 3_600_000;

    @Test
    void shouldPublishWithProducerKeysNodePartitionsAndEveryTimeFieldShifted(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("jobs.jsonl"), """
                {"v":1,"uid":"u1","job":"j","namespace":"n","state":"Running","updatedAt":1000,"startedAt":900,"worldSize":2,"ranks":[],"labels":{}}
                """);
        Files.writeString(dir.resolve("samples.jsonl"), """
                {"v":1,"node":"gpu-node-1","device":"mlx5_0","port":1,"ts":1000,"intervalMs":1000}
                {"v":1,"node":"gpu-node-2","device":"mlx5_0","port":1,"ts":1137,"intervalMs":1000}
                {"v":1,"node":"gpu-node-1","device":"mlx5_1","port":1,"ts":2000,"intervalMs":1000}
                """);
        Files.writeString(dir.resolve("host-samples.jsonl"), """
                {"v":1,"node":"gpu-node-2","iface":"eth0","ts":1500,"intervalMs":1000}
                """);
        String suffix = UUID.randomUUID().toString();
        ReplayTopics topics = new ReplayTopics("jobs-" + suffix, "ports-" + suffix, "hosts-" + suffix,
                "gpus-" + suffix, "a", "b", "c", "d");
        String bootstrap = SharedKafka.bootstrapServers();
        SharedKafka.createTopics(bootstrap, 3, topics.jobs(), topics.portSamples(), topics.hostSamples());
        List<Replayer.Input> inputs = List.of(new Replayer.Input(InputKind.JOBS, dir.resolve("jobs.jsonl")),
                new Replayer.Input(InputKind.PORT_SAMPLES, dir.resolve("samples.jsonl")),
                new Replayer.Input(InputKind.HOST_SAMPLES, dir.resolve("host-samples.jsonl")));

        RecordingPublisher.Summary summary;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.PARTITIONER_CLASS_CONFIG, NodePartitioner.class.getName()),
                new StringSerializer(), new StringSerializer())) {
            summary = RecordingPublisher.publish(inputs, topics, SHIFT, producer);
        }

        assertThat(summary).isEqualTo(new RecordingPublisher.Summary(5, 1000 + SHIFT, 2000 + SHIFT));
        List<ConsumerRecord<String, String>> records = readAll(bootstrap,
                List.of(topics.jobs(), topics.portSamples(), topics.hostSamples()), 5);
        assertThat(records).hasSize(5);
        for (ConsumerRecord<String, String> r : records) {
            JsonNode value = Json.MAPPER.readTree(r.value());
            String field = r.topic().equals(topics.jobs()) ? "updatedAt" : "ts";
            assertThat(r.timestamp()).isEqualTo(value.get(field).asLong());
            if (!r.topic().equals(topics.jobs())) {
                assertThat(r.partition()).isEqualTo(NodePartitioner.partition(r.key(), 3));
            }
        }
        assertThat(records).extracting(ConsumerRecord::key).containsExactlyInAnyOrder("u1",
                "gpu-node-1/mlx5_0/1", "gpu-node-2/mlx5_0/1", "gpu-node-1/mlx5_1/1", "gpu-node-2/eth0");
        JsonNode job = Json.MAPPER.readTree(records.stream().filter(r -> r.key().equals("u1")).findFirst()
                .orElseThrow().value());
        assertThat(job.get("updatedAt").asLong()).isEqualTo(1000 + SHIFT);
        assertThat(job.get("startedAt").asLong()).isEqualTo(900 + SHIFT);
        assertThat(job.get("worldSize").asInt()).isEqualTo(2);
    }

    private static List<ConsumerRecord<String, String>> readAll(String bootstrap, List<String> topics, int count) {
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "publisher-test-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(topics);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (out.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }
}
