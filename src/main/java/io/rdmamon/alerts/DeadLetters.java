package io.rdmamon.alerts;

import io.rdmamon.model.DeadLetter;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;

/**
 * Writes records that cannot be delivered to the dead-letter topic in the common {@link DeadLetter} form (the original
 * record in an envelope, reason and source topic as headers), plus a {@code receiver} header naming who refused it.
 * Synchronous, so an offset is committed only once its record is safely on the dead-letter topic.
 */
final class DeadLetters implements AutoCloseable {
    static final String RECEIVER = "rdmamon.dead-letter.receiver";

    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;

    DeadLetters(Map<String, Object> kafkaSettings, String topic) {
        Map<String, Object> settings = new HashMap<>(kafkaSettings);
        settings.put(ProducerConfig.ACKS_CONFIG, "all");
        settings.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        settings.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        settings.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        this.producer = new KafkaProducer<>(settings);
        this.topic = topic;
    }

    void publish(ConsumerRecord<byte[], byte[]> record, String receiver, String reason)
            throws ExecutionException, InterruptedException {
        ProducerRecord<byte[], byte[]> out = DeadLetter.of(topic, record, reason);
        out.headers().add(RECEIVER, bytes(receiver));
        producer.send(out).get();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        producer.close();
    }
}
