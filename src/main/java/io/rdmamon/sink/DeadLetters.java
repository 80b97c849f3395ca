package io.rdmamon.sink;

import io.rdmamon.model.DeadLetter;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * Sends records the sink cannot read to the dead-letter topic in the same form the stream app uses: a
 * {@link DeadLetter} (source topic, partition, offset, reason, the original value byte for byte in base64), keyed by
 * the original key, with the reason and source topic also in headers. {@link #send} returns only when the broker has
 * them all, so the offsets behind them can be committed.
 */
final class DeadLetters implements AutoCloseable {

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
        try {
            for (Letter letter : letters) {
                sent.add(producer.send(DeadLetter.of(topic, letter.record(), letter.reason())));
            }
            for (Future<?> future : sent) {
                future.get();
            }
        } catch (ExecutionException e) {
            throw new RetriableException("cannot write to dead-letter topic " + topic + ": " + e.getCause(), e);
        } catch (RuntimeException e) {
            throw new RetriableException("cannot write to dead-letter topic " + topic + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RetriableException("interrupted while writing to dead-letter topic " + topic, e);
        }
    }

    @Override
    public void close() {
        producer.close();
    }
}
