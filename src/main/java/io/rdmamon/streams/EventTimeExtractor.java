package io.rdmamon.streams;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.processor.TimestampExtractor;

/**
 * The time Kafka Streams knows an input record by: its own ({@code ts} of a sample, {@code updatedAt} of a job
 * record), not the Kafka record timestamp. That time decides which of a task's partitions gives the next record (Kafka
 * Streams takes the lowest), the task's stream time and the timestamps of what the app writes; with record timestamps,
 * a backlog sent partition after partition with the time of sending was read in sending order instead of in time
 * order. A record with no time of its own (a tombstone, or one bound for the dead-letter topic) keeps its Kafka
 * timestamp, or the partition's time when it has none, so that Kafka Streams never drops it.
 */
final class EventTimeExtractor<T> implements TimestampExtractor {
    private final Input<T> input;

    EventTimeExtractor(Input<T> input) {
        this.input = input;
    }

    @Override
    public long extract(ConsumerRecord<Object, Object> record, long partitionTime) {
        @SuppressWarnings("unchecked")
        Incoming<T> in = (Incoming<T>) record.value();
        var parsed = in == null ? null : in.checked(input.parser(), record.timestamp());
        if (parsed != null && parsed.ok()) {
            return input.eventTime(parsed.value());
        }
        return record.timestamp() >= 0 ? record.timestamp() : Math.max(partitionTime, 0);
    }
}
