package io.rdmamon.support;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * Reads a whole topic once, from its beginning up to its end offsets at the time of the call (the sizing benchmark's
 * output counts, the tests' topic checks). The records come as the
 * consumer's settings make them (with {@code read_committed}, transaction markers and aborted records are skipped).
 */
public final class TopicReader {
    private static final Duration POLL = Duration.ofMillis(200);

    private TopicReader() {
    }

    /**
     * Assigns every partition of {@code topic} to {@code consumer} and hands each record to {@code action}.
     *
     * @return the number of records read
     * @throws TimeoutException when the topic is not read to its end within {@code timeout}
     */
    public static <K, V> long readToEnd(Consumer<K, V> consumer, String topic, Duration timeout,
                                        java.util.function.Consumer<ConsumerRecord<K, V>> action)
            throws TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<TopicPartition> partitions = consumer.partitionsFor(topic, timeout).stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
        long count = 0;
        while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("could not read " + topic + " to its end offsets " + end + " in "
                        + timeout);
            }
            for (ConsumerRecord<K, V> record : consumer.poll(POLL)) {
                action.accept(record);
                count++;
            }
        }
        return count;
    }
}
