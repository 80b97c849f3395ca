package io.rdmamon.sink;

import io.rdmamon.support.Excerpt;
import com.fasterxml.jackson.core.JacksonException;
import io.rdmamon.model.ContractLimits;
import io.rdmamon.model.Json;
import io.rdmamon.model.RecordParser;
import io.rdmamon.model.Rejection;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes each consumed record with its topic's type and renders its points as line protocol, straight into the bodies
 * of the write requests (at most {@code influx.batch.max.points} points each); a record that cannot be read becomes
 * a dead letter (logged with its text, counted by reason) and the others go on. The result of one poll is one
 * {@link Batch}. Port, host and GPU samples, which any producer may write, are parsed by the same {@link RecordParser}s as
 * in the stream app, so the sink refuses what the stream app refuses (an implausible time, an impossible rate...).
 */
public final class RecordRouter {
    private static final Logger log = LoggerFactory.getLogger(RecordRouter.class);
    private static final int EXCERPT_CHARS = 300;

    /** What one poll becomes: points to write, dead letters to send, and the offsets to commit after both. */
    public record Batch(List<WriteBody> bodies, List<DeadLetters.Letter> deadLetters,
                        Map<TopicPartition, OffsetAndMetadata> offsets) {
        public int points() {
            return bodies.stream().mapToInt(WriteBody::points).sum();
        }
    }

    private final Map<String, PointConverter<?>> byTopic = new HashMap<>();
    private final Map<String, RecordParser<?>> parsers = new HashMap<>();
    private final SinkMetrics metrics;
    // one record's lines at a time: kept only once the whole record converted
    private final PointLines recordLines = new PointLines();
    // The bodies being filled, across polls, and what the records routed since the last batch owe before their
    // offsets may be committed: their dead letters, and the write of the body started (every record counted here is
    // complete: its points are in the bodies, or it is a dead letter)
    private final WriteBodies bodies;
    private List<DeadLetters.Letter> heldLetters = new ArrayList<>();
    private Map<TopicPartition, OffsetAndMetadata> heldOffsets = new HashMap<>();

    public RecordRouter(SinkConfig config, SinkMetrics metrics) {
        this.metrics = metrics;
        this.bodies = new WriteBodies(config.batchMaxPoints(), new Utf8Buffer(1 << 16));
        ContractLimits limits = config.contractLimits();
        parsers.put(config.portSamplesTopic(), RecordParser.PORT_SAMPLE.withLimits(limits));
        parsers.put(config.hostSamplesTopic(), RecordParser.HOST_SAMPLE.withLimits(limits));
        parsers.put(config.gpuSamplesTopic(), RecordParser.GPU_SAMPLE.withLimits(limits));
        byTopic.put(config.portSamplesTopic(), new PortSamplePoints());
        byTopic.put(config.hostSamplesTopic(), new HostIfacePoints());
        byTopic.put(config.gpuSamplesTopic(), new GpuSamplePoints());
        byTopic.put(config.jobBandwidthTopic(), new JobBandwidthPoints());
        byTopic.put(config.linkHealthTopic(), new LinkHealthPoints());
        byTopic.put(config.alertsTopic(), new AlertPoints());
    }

    /**
     * One poll, one batch: all of its records' bodies, the last one possibly short. For the tools that render polls
     * on their own ({@code bench sink}); call with nothing {@link #holding held}, from one thread at a time.
     */
    public Batch route(ConsumerRecords<byte[], byte[]> records) {
        List<Batch> parts = new ArrayList<>(append(records));
        if (holding()) {
            parts.add(flushHeld());
        }
        List<WriteBody> allBodies = new ArrayList<>();
        List<DeadLetters.Letter> deadLetters = new ArrayList<>();
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (Batch part : parts) {
            allBodies.addAll(part.bodies());
            deadLetters.addAll(part.deadLetters());
            offsets.putAll(part.offsets());
        }
        return new Batch(allBodies, deadLetters, offsets);
    }

    /**
     * Renders {@code records} into the bodies being filled, and returns a batch each time a body is full: the full
     * bodies, the dead letters of the records since the last batch, and the offsets of the records whose points are
     * all in those bodies or before them. What remains is {@link #holding held} until more records fill the body or
     * {@link #flushHeld} hands it out short: so that a backlog is written in bodies of {@code influx.batch.max.points}
     * however the polls cut it (4 MiB fetches of port samples come as polls of 5,000, 5,000 and ~1,900 records).
     * Call from one thread at a time.
     */
    public List<Batch> append(ConsumerRecords<byte[], byte[]> records) {
        List<Batch> batches = new ArrayList<>();
        for (TopicPartition partition : records.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> inPartition = records.records(partition);
            metrics.records(partition.topic(), inPartition.size());
            for (ConsumerRecord<byte[], byte[]> record : inPartition) {
                try {
                    recordLines.clear();
                    render(record, recordLines);
                    bodies.add(recordLines);
                } catch (IOException | RuntimeException e) {
                    String reason = reason(e);
                    log.warn("unreadable record {}-{}@{} goes to the dead-letter topic: {}; value: {}",
                            record.topic(), record.partition(), record.offset(), reason, excerpt(record.value()));
                    metrics.deadLettered(record.topic(), code(e));
                    heldLetters.add(new DeadLetters.Letter(record, reason));
                }
                OffsetAndMetadata next = new OffsetAndMetadata(record.offset() + 1);
                List<WriteBody> full = bodies.takeFull();
                if (full.isEmpty()) {
                    heldOffsets.put(partition, next);
                    continue;
                }
                // a body filled up: the record is in the batch only if its last point closed the body
                boolean inFull = !bodies.partial();
                if (inFull) {
                    heldOffsets.put(partition, next);
                }
                batches.add(cut(full));
                if (!inFull) {
                    heldOffsets.put(partition, next);
                }
            }
        }
        return batches;
    }

    /** Whether records are routed that no batch has been returned for yet. */
    public boolean holding() {
        return !heldOffsets.isEmpty();
    }

    /** Whether a record of {@code partition} is held: the consumer's position is past points not yet written. */
    boolean holds(TopicPartition partition) {
        return heldOffsets.containsKey(partition);
    }

    /** The held records as a batch: the body started, short, with their dead letters and offsets. */
    public Batch flushHeld() {
        if (!holding()) {
            throw new IllegalStateException("nothing held");
        }
        return cut(bodies.finish());
    }

    private Batch cut(List<WriteBody> full) {
        Batch batch = new Batch(full, heldLetters, heldOffsets);
        heldLetters = new ArrayList<>();
        heldOffsets = new HashMap<>();
        return batch;
    }

    private void render(ConsumerRecord<byte[], byte[]> record, PointLines lines) throws IOException {
        PointConverter<?> converter = byTopic.get(record.topic());
        if (converter == null) {
            throw new IllegalArgumentException("no converter for topic " + record.topic());
        }
        if (record.value() == null) {
            throw new InvalidRecordException(new Rejection(Rejection.TOMBSTONE, "null value (tombstone)"));
        }
        convert(converter, parsers.get(record.topic()), record, lines);
    }

    private static <T> void convert(PointConverter<T> converter, RecordParser<?> parser,
                                    ConsumerRecord<byte[], byte[]> record, PointLines lines) throws IOException {
        if (parser != null) {
            RecordParser.Parsed<?> parsed = parser.parse(record.value(), record.timestamp());
            if (!parsed.ok()) {
                throw new InvalidRecordException(new Rejection(parsed.code(), parsed.error()));
            }
            converter.render(converter.type().cast(parsed.value()), lines);
            return;
        }
        T decoded = Json.MAPPER.readValue(record.value(), converter.type());
        if (decoded == null) {
            throw new IllegalArgumentException("JSON null is not a " + converter.type().getSimpleName());
        }
        converter.render(decoded, lines);
    }

    private static String reason(Exception e) {
        if (e instanceof JacksonException j) {
            return "not valid JSON for this topic: " + j.getOriginalMessage();
        }
        // contract violations say what is wrong; anything else is named by its type too
        return e instanceof IllegalArgumentException ? e.getMessage() : e.toString();
    }

    /** The reason's code for the dead-letter counter: few values, whatever the message says. */
    private static String code(Exception e) {
        if (e instanceof InvalidRecordException invalid) {
            return invalid.code();
        }
        if (e instanceof JacksonException) {
            return Rejection.NOT_JSON;
        }
        return e instanceof IllegalArgumentException ? "invalid" : "error";
    }

    private static String excerpt(byte[] value) {
        if (value == null) {
            return "null";
        }
        return Excerpt.of(new String(value, StandardCharsets.UTF_8), EXCERPT_CHARS);
    }
}
