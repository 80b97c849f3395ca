package io.rdmamon.model;

import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

import java.io.IOException;

/** A Kafka serde for one record type, JSON via {@link Json#MAPPER}. Null in gives null out (tombstones). */
public final class JsonSerde<T> implements Serde<T> {
    private final Class<T> type;

    public JsonSerde(Class<T> type) {
        this.type = type;
    }

    public static <T> JsonSerde<T> of(Class<T> type) {
        return new JsonSerde<>(type);
    }

    @Override
    public Serializer<T> serializer() {
        return (topic, value) -> value == null ? null : Json.toBytes(value);
    }

    @Override
    public Deserializer<T> deserializer() {
        return (topic, bytes) -> {
            if (bytes == null) {
                return null;
            }
            try {
                return Json.MAPPER.readValue(bytes, type);
            } catch (IOException e) {
                throw new SerializationException("not a valid " + type.getSimpleName() + " record on " + topic
                        + ": " + e.getMessage(), e);
            }
        };
    }
}
