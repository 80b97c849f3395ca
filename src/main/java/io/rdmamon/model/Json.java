package io.rdmamon.model;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.UncheckedIOException;

/** The one JSON mapping used for every record on every topic, so all roles agree on the wire format. */
public final class Json {
    /**
     * Unknown fields are ignored (extra fields are allowed by every contract); doubles are written as JSON numbers.
     */
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            // samples are mostly doubles: Jackson's bundled parser for them reads the same values several times faster
            .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .build();

    private Json() {
    }

    public static byte[] toBytes(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String toString(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
