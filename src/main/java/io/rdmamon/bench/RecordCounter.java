package io.rdmamon.bench;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the records that arrive on an existing topic from its beginning, and keeps the earliest record timestamp:
 * on a topic with {@code message.timestamp.type=LogAppendTime}, when the broker appended it.
 */
final class RecordCounter implements AutoCloseable {
    private final AtomicLong count = new AtomicLong();
    private final AtomicLong firstTimestamp = new AtomicLong(Long.MAX_VALUE);
    private final Thread thread;
    private volatile boolean running = true;

    private RecordCounter(String bootstrap, String topic) {
        thread = new Thread(() -> {
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                    ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                    ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class))) {
                // assigned, not subscribed: no group to join, so the first record is seen as soon as it is there
                List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                        .map(p -> new TopicPartition(topic, p.partition())).toList();
                consumer.assign(partitions);
                consumer.seekToBeginning(partitions);
                while (running) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                        firstTimestamp.accumulateAndGet(r.timestamp(), Math::min);
                        count.incrementAndGet();
                    }
                }
            }
        }, "bench-record-counter");
        thread.setDaemon(true);
        thread.start();
    }

    static RecordCounter start(String bootstrap, String topic) {
        return new RecordCounter(bootstrap, topic);
    }

    long count() {
        return count.get();
    }

    /** The earliest record timestamp seen (epoch ms); {@link Long#MAX_VALUE} before any. */
    long firstTimestamp() {
        return firstTimestamp.get();
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(10_000);
    }
}
