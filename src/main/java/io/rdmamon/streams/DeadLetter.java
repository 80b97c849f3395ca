package io.rdmamon.streams;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

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
}
