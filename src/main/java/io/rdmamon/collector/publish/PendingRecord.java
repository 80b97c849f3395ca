package io.rdmamon.collector.publish;

import java.nio.charset.StandardCharsets;

/**
 * One record the collector handed to the sink and Kafka has not acknowledged yet. {@code publishedAtMs} is the wall
 * clock at {@code publish()}: it survives the spill file and a restart, so the publish latency of a replayed record
 * still counts from when it was sampled.
 *
 * <p>{@link #sizeBytes()} is the record's size in the spill file; the memory bound counts the same size, so moving a
 * record between memory and disk never changes the totals.
 */
public record PendingRecord(String topic, String key, long timestampMs, byte[] value, long publishedAtMs) {
    /** Per-record framing in the spill file: length, CRC, two timestamps, and the three field lengths. */
    static final int OVERHEAD_BYTES = 4 + 4 + 8 + 8 + 2 + 4 + 4;

    public PendingRecord {
        if (topic == null || value == null) {
            throw new IllegalArgumentException("topic and value are required");
        }
    }

    public int sizeBytes() {
        return OVERHEAD_BYTES + utf8Length(topic) + (key == null ? 0 : utf8Length(key)) + value.length;
    }

    /** Without encoding when ASCII (topic, node and device names): the buffer asks for sizes on every record. */
    private static int utf8Length(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) {
                return s.getBytes(StandardCharsets.UTF_8).length;
            }
        }
        return s.length();
    }
}
