package io.rdmamon.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * An input record rdmamon could not use: topic {@code rdma.dead-letter}, key = the original key. The original value
 * is kept byte for byte in {@code valueBase64}; {@code reason} says what was wrong (also in header
 * {@value #REASON_HEADER}, with the source topic in {@value #TOPIC_HEADER}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"v", "sourceTopic", "partition", "offset", "timestamp", "reason", "key", "valueBase64"})
public record DeadLetter(int v, String sourceTopic, Integer partition, Long offset, long timestamp, String reason,
                         String key, String valueBase64) {
    public static final int VERSION = 1;
    public static final String REASON_HEADER = "rdmamon.dead-letter.reason";
    public static final String TOPIC_HEADER = "rdmamon.dead-letter.topic";

    /**
     * The dead-letter record for a consumed record that could not be used: the envelope as value, the original key,
     * the original timestamp, and the reason and source topic as headers. Every role writes dead letters this way.
     */
    public static ProducerRecord<byte[], byte[]> of(String deadLetterTopic, ConsumerRecord<byte[], byte[]> r,
                                                    String reason) {
        DeadLetter envelope = new DeadLetter(VERSION, r.topic(), r.partition(), r.offset(), r.timestamp(), reason,
                r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8),
                r.value() == null ? null : Base64.getEncoder().encodeToString(r.value()));
        RecordHeaders headers = new RecordHeaders();
        headers.add(REASON_HEADER, reason.getBytes(StandardCharsets.UTF_8));
        headers.add(TOPIC_HEADER, r.topic().getBytes(StandardCharsets.UTF_8));
        return new ProducerRecord<>(deadLetterTopic, null, r.timestamp(), r.key(), Json.toBytes(envelope), headers);
    }
}
