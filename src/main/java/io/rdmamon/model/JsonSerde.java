package io.rdmamon.model;

import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

import java.io.IOException;

/** A Kafka serde for one record type, JSON via {@link Json#MAPPER}. Null in gives null out (tombstones). */
public final class JsonSerde<T> implements Serde<T> {
    private final Class<T> type;
    // bound to the type once, as Jackson recommends for repeated use
    private final ObjectReader reader;
    private final ObjectWriter writer;

    public JsonSerde(Class<T> type) {
        this.type = type;
        this.reader = Json.MAPPER.readerFor(type);
        this.writer = Json.MAPPER.writerFor(type);
    }

    public static <T> JsonSerde<T> of(Class<T> type) {
        return new JsonSerde<>(type);
    }

    @Override
    public Serializer<T> serializer() {
        return (topic, value) -> {
            if (value == null) {
                return null;
            }
            try {
                return writer.writeValueAsBytes(value);
            } catch (IOException e) {
                throw new SerializationException("cannot write a " + type.getSimpleName() + " record to " + topic
                        + ": " + e.getMessage(), e);
            }
        };
    }

    @Override
    public Deserializer<T> deserializer() {
        return (topic, bytes) -> {
            if (bytes == null) {
                return null;
            }
            try {
                return reader.readValue(bytes);
            } catch (IOException e) {
                throw new SerializationException("not a valid " + type.getSimpleName() + " record on " + topic
                        + ": " + e.getMessage(), e);
            }
        };
    }
}
