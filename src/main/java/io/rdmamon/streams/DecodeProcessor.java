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
 * Parses raw input records with a {@link RecordParser}. A good record goes on keyed by {@link Input#key} with its
 * event time ({@link Input#eventTime}) as the record timestamp, so event time is the sample's own {@code ts} whatever
 * the producer set. A bad one becomes a {@link DeadLetter} (logged with an excerpt, counted), and processing goes on.
 * Each goes to one named child: the values' or the dead letters'.
 */
final class DecodeProcessor<T> implements Processor<byte[], byte[], String, Decoded<T>> {
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
    public void process(Record<byte[], byte[]> record) {
        String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
        T value;
        String problem;
        String code; // the reason's code, for the counter
        if (record.value() == null) {
            value = input.tombstone(key, record.timestamp());
            problem = value == null ? "null value (tombstone) where a record was expected" : null;
            code = Rejection.TOMBSTONE;
        } else {
            RecordParser.Parsed<T> parsed = input.parser().parse(record.value(), record.timestamp());
            value = parsed.value();
            problem = parsed.ok() ? input.check(key, value) : parsed.error();
            // parsed: only the key check can fail, and it refuses a missing key only where one is required
            code = parsed.ok() ? key == null ? Rejection.NO_KEY : Rejection.KEY_MISMATCH : parsed.code();
        }
        if (problem == null) {
            long eventTime = input.eventTime(value);
            if (record.value() != null && skew.observe(record.timestamp(), eventTime)) {
                Optional<RecordMetadata> meta = context.recordMetadata();
                skew.warn(record.timestamp(), eventTime, key, meta.map(RecordMetadata::partition).orElse(-1),
                        meta.map(RecordMetadata::offset).orElse(-1L));
            }
            context.forward(new Record<>(input.key(value), new Decoded<>(value, null), eventTime), valuesChild);
            return;
        }
        Optional<RecordMetadata> meta = context.recordMetadata();
        String topic = meta.map(RecordMetadata::topic).orElse(input.name());
        DeadLetter letter = new DeadLetter(DeadLetter.VERSION, topic, meta.map(RecordMetadata::partition).orElse(null),
                meta.map(RecordMetadata::offset).orElse(null), record.timestamp(), problem, key,
                record.value() == null ? null : Base64.getEncoder().encodeToString(record.value()));
        deadLetters.increment(code);
        log.warn("dead letter from {} (partition {}, offset {}): {}; value: {}", topic, letter.partition(),
                letter.offset(), problem, excerpt(record.value()));
        Record<String, Decoded<T>> out = new Record<>(key, new Decoded<>(null, letter), record.timestamp());
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
