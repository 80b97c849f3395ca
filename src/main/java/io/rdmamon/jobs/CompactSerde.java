package io.rdmamon.jobs;

import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

import java.io.IOException;

/**
 * A serde of one of the app's binary internal formats ({@link CompactWriter}): null passes through both ways, and a
 * value that cannot be read fails with a {@link SerializationException} that names the topic.
 */
abstract class CompactSerde<T> implements Serde<T> {
    /** What a value is, for error messages: "job windows". */
    private final String what;

    CompactSerde(String what) {
        this.what = what;
    }

    abstract byte[] write(T value) throws IOException;

    abstract T read(byte[] bytes) throws IOException;

    @Override
    public final Serializer<T> serializer() {
        return (topic, value) -> {
            if (value == null) {
                return null;
            }
            try {
                return write(value);
            } catch (IOException e) {
                throw new SerializationException("cannot write " + what, e); // in memory: not expected
            }
        };
    }

    @Override
    public final Deserializer<T> deserializer() {
        return (topic, bytes) -> {
            if (bytes == null) {
                return null;
            }
            try {
                return read(bytes);
            } catch (IOException | RuntimeException e) {
                throw new SerializationException("not " + what + " on " + topic + ": " + e.getMessage(), e);
            }
        };
    }
}
