package io.rdmamon.streams;

import io.rdmamon.model.DeadLetter;
import io.rdmamon.model.RecordParser;
import io.rdmamon.model.Rejection;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * Parses raw input records with a {@link RecordParser} (read by the source's deserializer and checked by
 * {@link EventTimeExtractor}, see {@link Incoming}). A good record goes on keyed by {@link Input#key} with its
 * event time ({@link Input#eventTime}) as the record timestamp, so event time is the sample's own {@code ts} whatever
 * the producer set. A bad one becomes a {@link DeadLetter} (logged with an excerpt, counted), and processing goes on.
 * Each goes to one named child: the values' or the dead letters'.
 */
final class DecodeProcessor<T> implements Processor<byte[], Incoming<T>, String, Decoded<T>> {
    private static final Logger log = LoggerFactory.getLogger(DecodeProcessor.class);
    private static final int EXCERPT = 200;

    private final Input<T> input;
    private final DeadLetterCounters deadLetters;
    private final RecordTimestampSkew skew;
    private final String valuesChild;
    private final String deadLettersChild;
    private ProcessorContext<String, Decoded<T>> context;

    DecodeProcessor(Input<T> input, DeadLetterCounters deadLetters, RecordTimestampSkew skew, String valuesChild,
                    String deadLettersChild) {
        this.input = input;
        this.deadLetters = deadLetters;
        this.skew = skew;
        this.valuesChild = valuesChild;
        this.deadLettersChild = deadLettersChild;
    }

    @Override
    public void init(ProcessorContext<String, Decoded<T>> context) {
        this.context = context;
    }

    @Override
    public void process(Record<byte[], Incoming<T>> record) {
        String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
        // record.timestamp() is the record's own time already (EventTimeExtractor); the Kafka one came along
        Incoming<T> in = record.value();
        byte[] raw = in == null ? null : in.raw;
        RecordParser.Parsed<T> parsed = in == null ? null : in.checked(input.parser(), record.timestamp());
        long timestamp = in == null ? record.timestamp() : in.recordTimestamp;
        T value;
        String problem;
        String code; // the reason's code, for the counter
        if (raw == null) {
            value = input.tombstone(key, timestamp);
            problem = value == null ? "null value (tombstone) where a record was expected" : null;
            code = Rejection.TOMBSTONE;
        } else {
            value = parsed.value();
            problem = parsed.ok() ? input.check(key, value) : parsed.error();
            // parsed: only the key check can fail, and it refuses a missing key only where one is required
            code = parsed.ok() ? key == null ? Rejection.NO_KEY : Rejection.KEY_MISMATCH : parsed.code();
        }
        if (problem == null) {
            long eventTime = input.eventTime(value);
            if (raw != null && skew.observe(timestamp, eventTime)) {
                Optional<RecordMetadata> meta = context.recordMetadata();
                skew.warn(timestamp, eventTime, key, meta.map(RecordMetadata::partition).orElse(-1),
                        meta.map(RecordMetadata::offset).orElse(-1L));
            }
            context.forward(new Record<>(input.key(value), new Decoded<>(value, null), eventTime), valuesChild);
            return;
        }
        Optional<RecordMetadata> meta = context.recordMetadata();
        String topic = meta.map(RecordMetadata::topic).orElse(input.name());
        DeadLetter letter = new DeadLetter(DeadLetter.VERSION, topic, meta.map(RecordMetadata::partition).orElse(null),
                meta.map(RecordMetadata::offset).orElse(null), timestamp, problem, key,
                raw == null ? null : Base64.getEncoder().encodeToString(raw));
        deadLetters.increment(code);
        log.warn("dead letter from {} (partition {}, offset {}): {}; value: {}", topic, letter.partition(),
                letter.offset(), problem, excerpt(raw));
        Record<String, Decoded<T>> out = new Record<>(key, new Decoded<>(null, letter), timestamp);
        out.headers().add(DeadLetter.REASON_HEADER, problem.getBytes(StandardCharsets.UTF_8));
        out.headers().add(DeadLetter.TOPIC_HEADER, topic.getBytes(StandardCharsets.UTF_8));
        context.forward(out, deadLettersChild);
    }

    private static String excerpt(byte[] value) {
        if (value == null) {
            return "null";
        }
        String text = new String(value, 0, Math.min(value.length, EXCERPT), StandardCharsets.UTF_8);
        return text.replace('\n', ' ') + (value.length > EXCERPT ? "..." : "");
    }
}
