package io.rdmamon.replay;

import io.rdmamon.clock.ClockOffsets;
import io.rdmamon.model.ContractLimits;
import io.rdmamon.streams.StreamsAppConfig;
import io.rdmamon.support.FileTrees;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyDescription;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Runs a stream topology over recorded topic files in a {@link TopologyTestDriver}: single-threaded, event time, as
 * fast as the machine goes, and deterministic — the same files give the same outputs. Each record is piped with its
 * own timestamp; before it, the driver's wall clock is moved up to that timestamp in steps of at most
 * {@link #WALL_CLOCK_STEP} so wall-clock punctuators (collector silence) fire as they would live. A sample of a node
 * whose clock is off moves it only as far as its time corrected by the node's offset ({@link ClockOffsets}, with the
 * stream app's defaults, comparing the nodes with each other: the first records are read, and the nodes' clocks judged
 * by their majority, before the wall clock starts): live, the wall clock is the app's, and one node ahead does not
 * move it.
 *
 * <p>Order: {@link Order#ARRIVAL} keeps each file's line order (the recorded arrival order, late samples included)
 * and interleaves the files by timestamp; {@link Order#TIME} sorts everything by timestamp (for dumps concatenated
 * partition by partition; holds all records in memory).
 */
public final class Replayer {
    private static final Logger log = LoggerFactory.getLogger(Replayer.class);
    /** Wall-clock punctuators fire at most once per advance: move in steps no longer than their period. */
    public static final Duration WALL_CLOCK_STEP = Duration.ofSeconds(1);
    private static final int DRAIN_EVERY = 256;
    /** Records read before the replay's wall clock starts, to judge the nodes' clocks by their majority. */
    private static final int HEAD = 256;

    public enum Order { ARRIVAL, TIME }

    /** One input file and the topic its lines go to. */
    public record Input(InputKind kind, Path file) {
    }

    /** One record the topology wrote to an output topic; headers decoded as UTF-8 (dead-letter reasons). */
    public record Output(String topic, String key, String value, long timestamp, Map<String, String> headers) {
    }

    /** What a replay read and wrote. Timestamps are null when no record was read. */
    public record Summary(long records, long skippedLines, Map<String, Long> outputs, Long firstTimestamp,
                          Long lastTimestamp) {
    }

    private final Topology topology;
    private final Properties streamsConfig;
    private final ReplayTopics topics;
    private final Order order;
    private final MeterRegistry registry;

    public Replayer(Topology topology, Properties streamsConfig, ReplayTopics topics, Order order,
                    MeterRegistry registry) {
        this.topology = topology;
        this.streamsConfig = streamsConfig;
        this.topics = topics;
        this.order = order;
        this.registry = registry == null ? new SimpleMeterRegistry() : registry;
    }

    /** Replays {@code inputs}; every output record goes to {@code sink} in the order the topology wrote it. */
    public Summary run(List<Input> inputs, Consumer<Output> sink) throws IOException {
        List<JsonLinesSource> sources = new ArrayList<>();
        Path stateDir = Files.createTempDirectory("rdmamon-replay-");
        try {
            for (int i = 0; i < inputs.size(); i++) {
                sources.add(new JsonLinesSource(inputs.get(i).file(), inputs.get(i).kind(), i, registry));
            }
            ClockOffsets clocks = new ClockOffsets(StreamsAppConfig.DEFAULT_CLOCK_SKEW_MAX,
                    ContractLimits.DEFAULT_MAX_FUTURE, (node, before, after, offset, peers) -> { });
            RecordStream stream = order == Order.TIME ? RecordStream.sorted(sources)
                    : RecordStream.merged(sources, r -> r.timestamp() - clocks.correction(node(r)));
            Summary summary = drive(stream, clocks, stateDir, sink);
            long skipped = sources.stream().mapToLong(JsonLinesSource::skipped).sum();
            return new Summary(summary.records(), skipped, summary.outputs(), summary.firstTimestamp(),
                    summary.lastTimestamp());
        } finally {
            for (JsonLinesSource source : sources) {
                source.close();
            }
            FileTrees.deleteQuietly(stateDir);
        }
    }

    private Summary drive(RecordStream stream, ClockOffsets clocks, Path stateDir, Consumer<Output> sink) {
        Deque<ReplayRecord> head = judgeClocks(stream, clocks);
        if (head.isEmpty()) {
            return new Summary(0, 0, Map.of(), null, null);
        }
        ReplayRecord first = head.peekFirst();
        long start = first.timestamp() - clocks.correction(node(first));
        int fromHead = head.size();
        Properties props = new Properties();
        props.putAll(streamsConfig);
        props.putIfAbsent(StreamsConfig.APPLICATION_ID_CONFIG, "rdmamon-replay");
        props.putIfAbsent(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "replay.invalid:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        Set<String> sourceTopics = sourceTopics(topology);
        Map<String, Long> outputs = new TreeMap<>();
        long count = 0;
        long last = first.timestamp();
        try (TopologyTestDriver driver = new TopologyTestDriver(topology, props, Instant.ofEpochMilli(start))) {
            Map<InputKind, TestInputTopic<String, String>> inputs = new EnumMap<>(InputKind.class);
            Map<String, TestOutputTopic<String, String>> outputTopics = new LinkedHashMap<>();
            topics.outputs().forEach(t -> outputTopics.put(t,
                    driver.createOutputTopic(t, new StringDeserializer(), new StringDeserializer())));
            Set<InputKind> warned = new HashSet<>();
            long wallClock = start;
            long index = 0;
            for (ReplayRecord record = next(head, stream); record != null; record = next(head, stream), index++) {
                String topic = topics.input(record.kind());
                if (!sourceTopics.contains(topic)) {
                    if (warned.add(record.kind())) {
                        log.warn("the topology does not read {}: its records are not replayed", topic);
                    }
                    continue;
                }
                wallClock = advanceWallClock(driver, wallClock, index < fromHead
                        ? record.timestamp() - clocks.correction(node(record))
                        : wallClockTarget(clocks, record, wallClock));
                inputs.computeIfAbsent(record.kind(), k -> driver.createInputTopic(topic, new StringSerializer(),
                        new StringSerializer())).pipeInput(record.key(), record.value(), record.timestamp());
                count++;
                last = Math.max(last, record.timestamp());
                if (count % DRAIN_EVERY == 0) {
                    drain(driver, outputTopics, outputs, sink);
                }
            }
            drain(driver, outputTopics, outputs, sink);
        }
        return new Summary(count, 0, outputs, first.timestamp(), last);
    }

    /**
     * The first {@value #HEAD} records, each sample's node's clock judged on the way ({@code clocks}, with the wall
     * clock where it would be): before the replay's wall clock starts, the nodes' majority has said whose clock is
     * off, so a node off that comes first does not set it. The head is then replayed with the clocks as judged.
     */
    private static Deque<ReplayRecord> judgeClocks(RecordStream stream, ClockOffsets clocks) {
        Deque<ReplayRecord> head = new ArrayDeque<>();
        long wallClock = 0;
        for (ReplayRecord r; head.size() < HEAD && (r = stream.next()) != null; ) {
            wallClock = head.isEmpty() ? r.timestamp() : wallClock;
            head.add(r);
            wallClock = Math.max(wallClock, wallClockTarget(clocks, r, wallClock));
        }
        return head;
    }

    private static ReplayRecord next(Deque<ReplayRecord> head, RecordStream stream) {
        return head.isEmpty() ? stream.next() : head.pollFirst();
    }

    /** The record's time, a sample's as corrected for its node's clock: where the app's wall clock would be. */
    private static long wallClockTarget(ClockOffsets clocks, ReplayRecord record, long wallClock) {
        String node = node(record);
        return node == null ? record.timestamp() : record.timestamp() - clocks.observe(node, record.timestamp(),
                wallClock);
    }

    /** A sample's node (its key up to the first {@code /}); null for job records and records without a key. */
    private static String node(ReplayRecord record) {
        if (record.kind() == InputKind.JOBS || record.key() == null) {
            return null;
        }
        int slash = record.key().indexOf('/');
        return slash < 0 ? record.key() : record.key().substring(0, slash);
    }

    private static long advanceWallClock(TopologyTestDriver driver, long wallClock, long target) {
        long now = wallClock;
        while (now < target) {
            long step = Math.min(WALL_CLOCK_STEP.toMillis(), target - now);
            driver.advanceWallClockTime(Duration.ofMillis(step));
            now += step;
        }
        return now;
    }

    private static void drain(TopologyTestDriver driver, Map<String, TestOutputTopic<String, String>> topics,
                              Map<String, Long> counts, Consumer<Output> sink) {
        Set<String> produced = driver.producedTopicNames();
        topics.forEach((name, topic) -> {
            if (!produced.contains(name)) {
                return;
            }
            while (!topic.isEmpty()) {
                TestRecord<String, String> r = topic.readRecord();
                Map<String, String> headers = new LinkedHashMap<>();
                for (Header h : r.headers()) {
                    headers.put(h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
                }
                counts.merge(name, 1L, Long::sum);
                sink.accept(new Output(name, r.key(), r.value(), r.timestamp(), headers));
            }
        });
    }

    private static Set<String> sourceTopics(Topology topology) {
        Set<String> topics = new HashSet<>();
        for (TopologyDescription.Subtopology sub : topology.describe().subtopologies()) {
            for (TopologyDescription.Node node : sub.nodes()) {
                if (node instanceof TopologyDescription.Source source && source.topicSet() != null) {
                    topics.addAll(source.topicSet());
                }
            }
        }
        for (TopologyDescription.GlobalStore store : topology.describe().globalStores()) {
            topics.addAll(store.source().topicSet());
        }
        return topics;
    }

}
