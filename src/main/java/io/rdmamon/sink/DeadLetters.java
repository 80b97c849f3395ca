package io.rdmamon.sink;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * Sends records the sink cannot read to the dead-letter topic, unchanged (key, value, headers, timestamp), with
 * headers saying why and where from: {@code reason}, {@code source.topic}, {@code source.partition},
 * {@code source.offset}, {@code failed.by} = {@code sink}. {@link #send} returns only when the broker has them.
 */
final class DeadLetters implements AutoCloseable {
    static final String REASON_HEADER = "reason";
    static final String SOURCE_TOPIC_HEADER = "source.topic";
    static final String SOURCE_PARTITION_HEADER = "source.partition";
    static final String SOURCE_OFFSET_HEADER = "source.offset";
    static final String FAILED_BY_HEADER = "failed.by";

    /** A record the sink could not turn into points, and why. */
    record Letter(ConsumerRecord<byte[], byte[]> record, String reason) {
    }

    private final Producer<byte[], byte[]> producer;
    private final String topic;

    DeadLetters(Producer<byte[], byte[]> producer, String topic) {
        this.producer = producer;
        this.topic = topic;
    }

    void send(List<Letter> letters) {
        List<Future<?>> sent = new ArrayList<>(letters.size());
        for (Letter letter : letters) {
            ConsumerRecord<byte[], byte[]> r = letter.record();
            Headers headers = new RecordHeaders(r.headers().toArray());
            headers.add(REASON_HEADER, utf8(letter.reason()));
            headers.add(SOURCE_TOPIC_HEADER, utf8(r.topic()));
            headers.add(SOURCE_PARTITION_HEADER, utf8(Integer.toString(r.partition())));
            headers.add(SOURCE_OFFSET_HEADER, utf8(Long.toString(r.offset())));
            headers.add(FAILED_BY_HEADER, utf8("sink"));
            sent.add(producer.send(new ProducerRecord<>(topic, null, r.timestamp(), r.key(), r.value(), headers)));
        }
        try {
            for (Future<?> future : sent) {
                future.get();
            }
        } catch (ExecutionException e) {
            throw new RetriableException("cannot write to dead-letter topic " + topic + ": " + e.getCause(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RetriableException("interrupted while writing to dead-letter topic " + topic, e);
        }
    }

    @Override
    public void close() {
        producer.close();
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
