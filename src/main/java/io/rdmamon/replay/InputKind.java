package io.rdmamon.replay;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The inputs a replay feeds (topic names in {@link ReplayTopics}), with where each record's timestamp and key come
 * from — the same as the producers use: samples are timestamped with {@code ts} and keyed
 * {@code node/device/port}, {@code node/iface} or {@code node/gpu}, job records with {@code updatedAt} and keyed by {@code uid}.
 */
public enum InputKind {
    JOBS("updatedAt", "uid"),
    PORT_SAMPLES("ts", "node", "device", "port"),
    HOST_SAMPLES("ts", "node", "iface"),
    GPU_SAMPLES("ts", "node", "gpu");

    private final String timestampField;
    private final String[] keyFields;

    InputKind(String timestampField, String... keyFields) {
        this.timestampField = timestampField;
        this.keyFields = keyFields;
    }

    public String timestampField() {
        return timestampField;
    }

    /** The record's timestamp, or null when the field is missing or not an integer. */
    Long timestamp(JsonNode record) {
        JsonNode ts = record.get(timestampField);
        return ts != null && ts.canConvertToLong() && ts.isIntegralNumber() ? ts.asLong() : null;
    }

    /**
     * The key a producer would have given the record, or null when a key field is missing: the record still goes
     * to the topology, which judges it (dead letter) as it would on the topic.
     */
    String key(JsonNode record) {
        StringBuilder key = new StringBuilder();
        for (String field : keyFields) {
            JsonNode value = record.get(field);
            if (value == null || value.isNull() || value.isContainerNode()) {
                return null;
            }
            key.append(key.length() == 0 ? "" : "/").append(value.asText());
        }
        return key.toString();
    }
}
