package io.rdmamon.streams;

import io.rdmamon.model.RecordParser;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/**
 * An input record as its source read it, before Kafka Streams takes its time: the raw value (null: a tombstone), the
 * value read from it by the topic's deserializer, and, set by {@link EventTimeExtractor}, the Kafka record timestamp
 * and the fully checked value. Kafka Streams then knows each record by its own time ({@code ts}, {@code updatedAt})
 * from the start, while {@link DecodeProcessor} still has the Kafka timestamp for the contract's check on future
 * times and for dead letters. Each value is read once.
 */
final class Incoming<T> {
    final byte[] raw;
    /** The deserializer's reading (shape only), replaced by the checked one in the extractor; null for a tombstone. */
    RecordParser.Parsed<T> parsed;
    /** The Kafka record timestamp, set by the extractor. */
    long recordTimestamp;
    /** Whether {@link #parsed} has had the checks that need {@link #recordTimestamp}. */
    boolean checked;

    private Incoming(byte[] raw, RecordParser.Parsed<T> parsed) {
        this.raw = raw;
        this.parsed = parsed;
    }

    /** Reads an input topic's values into {@link Incoming}s; written back as the raw bytes. */
    static <T> Serde<Incoming<T>> serde(RecordParser<T> parser) {
        return Serdes.serdeFrom((topic, in) -> in == null ? null : in.raw,
                (topic, bytes) -> new Incoming<>(bytes, bytes == null ? null : parser.read(bytes)));
    }

    /** The parse with every check, against the Kafka record timestamp: the extractor's, or done here once. */
    RecordParser.Parsed<T> checked(RecordParser<T> parser, long recordTimestamp) {
        if (!checked) {
            this.recordTimestamp = recordTimestamp;
            parsed = parsed == null ? null : parser.check(parsed, recordTimestamp);
            checked = true;
        }
        return parsed;
    }
}
