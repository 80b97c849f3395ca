package io.rdmamon.streams;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.jobs.JobAssignments;
import io.rdmamon.model.Alert;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.NodePartitioner;
import io.rdmamon.testing.SharedKafka;
import io.rdmamon.testing.TrainingTraffic;
import io.rdmamon.testing.TrainingTraffic.Event;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Producers rdmamon does not control, on a real broker: the same records produced five ways, each to an app of its
 * own running side by side, against rdmamon's own way (records stamped with their own times, partitioned by node).
 * Stamped with the time of sending (kcat, a bridge: here traffic recorded two hours ago sent now), to
 * topics with {@code message.timestamp.type=LogAppendTime}, and partitioned by Kafka's default on the whole key
 * (re-partitioned by node): the same alerts and job-bandwidth windows ({@link EventTimeTest} has the timestamps on
 * the topology alone). With no key: refused to the dead-letter topic, as their order is lost. The job's record goes
 * first, as it does live (the job watcher publishes it when the pod starts, before its traffic); the samples then
 * follow as collectors send them, a second's worth at a time.
 */
class ProducerVariantsTest {
    /**
     * Two hours ago: long before the time of sending, and still within the topics' retention. Records stamped months
     * back (as an old recording replayed with its own timestamps) are deleted by the broker's next retention check,
     * inputs and the app's outputs alike, which stamp event time.
     */
    static final long T0 = (System.currentTimeMillis() / 10_000) * 10_000 - 7_200_000;

    @TempDir
    Path stateDirs;

    private final List<AutoCloseable> open = new ArrayList<>();
    private final List<Exception> sendFailures = java.util.Collections.synchronizedList(new ArrayList<>());

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /**
     * How a producer writes: rdmamon's way (own timestamps, partitioned by node), stamped with the time of sending,
     * to topics with LogAppendTime, partitioned by Kafka's default on the whole key, or with no key at all.
     */
    private enum Stamps { OWN, SENT, APPENDED, FULL_KEY, NO_KEY }

    private static final int PARTITIONS = 6;
    /** The traffic's end, and how much faster than real time it is sent. */
    private static final long END = T0 + 150_000;
    private static final long SPEED_UP = 3;

    /** One app of its own, its topics, and what it produced. */
    private final class Run {
        final Stamps stamps;
        final String appId;
        final StreamsAppConfig.TopicNames topics;
        final StreamsAppTest.Outputs out;
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();

        Run(Stamps stamps) throws Exception {
            this.stamps = stamps;
            String suffix = stamps.name().toLowerCase() + "-" + UUID.randomUUID().toString().substring(0, 8);
            appId = "rdmamon-et-" + suffix;
            Map<String, Object> settings = StreamsAppTest.settings(suffix, appId);
            settings.put(StreamsAppConfig.COMMIT_INTERVAL_CONFIG, 200);
            settings.put(StreamsAppConfig.TOPICS_PARTITIONS_CONFIG, PARTITIONS);
            settings.put(StreamsAppConfig.STATE_DIR_CONFIG, stateDirs.resolve(suffix).toString());
            StreamsAppConfig cfg = new StreamsAppConfig(settings);
            topics = cfg.topics();
            if (stamps == Stamps.APPENDED) {
                Map<String, String> append = Map.of(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "LogAppendTime");
                Map<String, String> compactedAppend = new HashMap<>(append);
                compactedAppend.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
                try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                        SharedKafka.bootstrapServers()))) {
                    admin.createTopics(List.of(new NewTopic(topics.portSamples(), PARTITIONS, (short) 1).configs(append),
                            new NewTopic(topics.hostSamples(), PARTITIONS, (short) 1).configs(append),
                            new NewTopic(topics.jobs(), PARTITIONS, (short) 1).configs(compactedAppend))).all().get();
                }
            }
            StreamsApp app = new StreamsApp(cfg, registry).start();
            open.add(app);
            out = new StreamsAppTest.Outputs(topics);
            open.add(out);
            await().atMost(Duration.ofSeconds(60)).until(() -> app.state() == KafkaStreams.State.RUNNING);
        }

        void produce(KafkaProducer<String, byte[]> byNode, KafkaProducer<String, byte[]> byKafkaDefault,
                     List<Event> events) {
            KafkaProducer<String, byte[]> producer = stamps == Stamps.FULL_KEY || stamps == Stamps.NO_KEY
                    ? byKafkaDefault : byNode;
            for (Event e : events) {
                // null: the producer stamps the time of sending
                producer.send(StreamsAppTest.record(topics, e, stamps == Stamps.SENT ? null : e.ts(),
                        stamps == Stamps.NO_KEY), this::sent);
            }
            producer.flush();
        }

        private void sent(org.apache.kafka.clients.producer.RecordMetadata meta, Exception failure) {
            if (failure != null) {
                sendFailures.add(failure);
            }
        }

        long holdChangesCommitted() {
            return SharedKafka.committed(SharedKafka.bootstrapServers(), appId,
                    appId + "-" + JobAssignments.REPARTITION + "-repartition");
        }

        List<String> alerts() {
            return out.alerts.stream().map(a -> a.type() + " " + a.status() + " " + a.startsAt()).sorted().toList();
        }

        double misrouted() {
            return registry.find("rdmamon.streams.misrouted.samples").counter().count();
        }

        double deadLetters(String reason) {
            return registry.find("rdmamon.streams.dead.letters").tag("reason", reason).counters().stream()
                    .mapToDouble(c -> c.count()).sum();
        }

        Map<Long, Double> bytesByWindow() {
            Map<Long, Double> bytes = new java.util.TreeMap<>();
            out.bandwidth.forEach(b -> bytes.put(b.windowStart(), b.txBytesPerSec() + b.rxBytesPerSec()));
            return bytes;
        }

        List<Long> windowStarts() {
            return out.bandwidth.stream().map(b -> b.windowStart()).sorted().toList();
        }

        List<String> windows() {
            return out.bandwidth.stream().map(b -> b.windowStart() - T0 + " " + Math.round(b.txBytesPerSec()) + " "
                    + Math.round(b.rxBytesPerSec())).sorted().toList();
        }
    }

    @Test
    void shouldJudgeByTheRecordsOwnTimesAndNodesWhateverTheProducerDid() throws Exception {
        TrainingTraffic sim = new TrainingTraffic();
        long hang = T0 + 80_000;
        TrainingTraffic.Job job = sim.job("uid-et", List.of("n1", "n2"), List.of("mlx5_0", "mlx5_1"))
                .trains(T0 + 10_000, Long.MAX_VALUE).pause(hang, hang + 40_000);
        sim.record(job, JobRecord.RUNNING, T0);
        List<Event> events = sim.run(T0, END);
        List<Event> jobs = events.stream().filter(e -> e.job() != null).toList();
        List<Event> samples = events.stream().filter(e -> e.job() == null).toList();

        // not idempotent: the in-process broker can refuse a burst to a just-created topic with
        // OUT_OF_ORDER_SEQUENCE_NUMBER (KAFKA-15591 family); every send is checked instead
        KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers(),
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false, ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.PARTITIONER_CLASS_CONFIG, NodePartitioner.class.getName()),
                new StringSerializer(), new ByteArraySerializer());
        open.add(producer);
        KafkaProducer<String, byte[]> kafkaDefault = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers(),
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false, ProducerConfig.ACKS_CONFIG, "all"),
                new StringSerializer(), new ByteArraySerializer());
        open.add(kafkaDefault);
        List<Run> runs = new ArrayList<>();
        for (Stamps stamps : Stamps.values()) {
            runs.add(new Run(stamps));
        }
        for (Run run : runs) {
            run.produce(producer, kafkaDefault, jobs);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> runs.stream().allMatch(r -> r.holdChangesCommitted() > 0));
        // as collectors send them: a second's samples at a time, here three seconds of them per second, to every app
        long startedAt = System.currentTimeMillis();
        for (int from = 0; from < samples.size(); ) {
            long second = samples.get(from).ts() / 1000;
            int to = from;
            while (to < samples.size() && samples.get(to).ts() / 1000 == second) {
                to++;
            }
            long due = startedAt + (second * 1000 - T0) / SPEED_UP;
            Thread.sleep(Math.max(0, due - System.currentTimeMillis()));
            for (Run run : runs) {
                run.produce(producer, kafkaDefault, samples.subList(from, to));
            }
            from = to;
        }
        for (Run run : runs.subList(0, runs.size() - 1)) {
            await().atMost(Duration.ofSeconds(90)).alias(run.stamps + ": the resolved stall and windows to the end")
                    .until(() -> run.out.poll().alerts.stream().anyMatch(a -> a.type().equals(Alert.STALLED_SYNC)
                            && a.status().equals(Alert.RESOLVED)) && run.out.bandwidth.stream()
                            .anyMatch(b -> b.windowStart() >= END - 20_000));
        }
        Run noKey = runs.get(runs.size() - 1);
        assertThat(sendFailures).as("every record sent").isEmpty();
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(noKey.deadLetters("no_key"))
                .as("keyless samples refused").isEqualTo((double) samples.size()));
        Thread.sleep(1_000); // anything written twice would show by now
        runs.forEach(r -> r.out.poll());

        Run own = runs.get(0);
        assertThat(own.alerts()).containsExactly("STALLED_SYNC firing " + hang, "STALLED_SYNC resolved " + hang);
        assertThat(own.windows()).hasSizeGreaterThan(10);
        assertThat(own.misrouted()).isZero();
        for (Run other : runs.subList(1, 3)) {
            assertThat(other.alerts()).as(other.stamps + " alerts").isEqualTo(own.alerts());
            assertThat(other.windows()).as(other.stamps + " windows").isEqualTo(own.windows());
            var skew = other.registry.find("rdmamon.streams.record.timestamp.skew")
                    .tag("topic", other.topics.portSamples()).summary();
            assertThat(skew.max()).as(other.stamps + ": the records were stamped hours after their time")
                    .isGreaterThan(3_600);
        }
        Run fullKey = runs.get(3);
        assertThat(fullKey.misrouted()).as("samples outside their node's partition").isPositive();
        assertThat(fullKey.alerts()).isEqualTo(own.alerts());
        // a re-partitioned port's sample can come after its window went out (counted as a late sample): the windows
        // are the same ones, their bytes within a sample's share
        assertThat(fullKey.windowStarts()).isEqualTo(own.windowStarts());
        Map<Long, Double> ownBytes = own.bytesByWindow();
        fullKey.bytesByWindow().forEach((start, bytes) -> assertThat(bytes).as("window " + (start - T0))
                .isCloseTo(ownBytes.get(start), org.assertj.core.data.Percentage.withPercentage(2)));
        assertThat(noKey.out.alerts).isEmpty();
        assertThat(noKey.out.bandwidth).isEmpty();
    }
}
