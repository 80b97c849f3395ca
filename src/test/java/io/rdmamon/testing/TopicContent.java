package io.rdmamon.testing;

import io.rdmamon.support.TopicReader;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/** Reads a whole topic, up to its end offsets at the time of the call, so that duplicates show as well as gaps. */
public final class TopicContent {
    private TopicContent() {
    }

    public static List<ConsumerRecord<String, byte[]>> readAll(String bootstrap, String topic) {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            List<ConsumerRecord<String, byte[]>> out = new ArrayList<>();
            TopicReader.readToEnd(consumer, topic, Duration.ofSeconds(60), out::add);
            return out;
        } catch (TimeoutException e) {
            throw new AssertionError(e.getMessage(), e);
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
