package io.rdmamon.testing;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads a whole topic, up to its end offsets at the time of the call, so that duplicates show as well as gaps. */
public final class TopicContent {
    private TopicContent() {
    }

    public static List<ConsumerRecord<String, byte[]>> readAll(String bootstrap, String topic) {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            List<ConsumerRecord<String, byte[]>> out = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 60_000;
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.currentTimeMillis() > deadline) {
                    throw new AssertionError("could not read " + topic + " to its end offsets " + end);
                }
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
            return out;
        }
    }

    /** Values as strings, grouped by key, in offset order (the order a consumer of one key sees). */
    public static Map<String, List<String>> valuesByKey(List<ConsumerRecord<String, byte[]>> records) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (ConsumerRecord<String, byte[]> r : records) {
            out.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(new String(r.value(), StandardCharsets.UTF_8));
        }
        return out;
    }
}
