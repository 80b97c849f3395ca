package io.rdmamon.streams;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.detect.DetectorConfig;
import io.rdmamon.model.Alert;
import io.rdmamon.model.Json;
import io.rdmamon.model.JobBandwidth;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.NodePartitioner;
import io.rdmamon.model.LinkHealth;
import io.rdmamon.model.PortSample;
import io.rdmamon.testing.SharedKafka;
import io.rdmamon.testing.TrainingTraffic;
import io.rdmamon.testing.TrainingTraffic.Event;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The whole app on a real KRaft broker with exactly-once processing: collector-shaped records in, job bandwidth and
 * alerts out, and a restart mid-run (new instance, same application.id, empty state directory: everything restored
 * from the changelogs) that neither repeats nor loses an output.
 */
class StreamsAppTest {
    static final long T0 = (System.currentTimeMillis() / 10_000) * 10_000 - 600_000;

    @TempDir
    Path stateDirs;

    private final List<AutoCloseable> open = new ArrayList<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    /** Both kinds of store below the objects: the second start restores from the changelogs or from local RocksDB. */
    @ParameterizedTest
    @ValueSource(strings = {"in_memory", "rocksdb"})
    void shouldPublishBandwidthAndAlertsOnceEachAcrossARestart(String storeType) throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        Map<String, Object> settings = settings(suffix, "rdmamon-it-" + suffix);
        settings.put(StreamsAppConfig.COMMIT_INTERVAL_CONFIG, 100);
        settings.put(StreamsAppConfig.STATE_STORE_TYPE_CONFIG, storeType);
        StreamsAppConfig.TopicNames topics = new StreamsAppConfig(settings).topics();

        TrainingTraffic sim = new TrainingTraffic();
        long linkDown = T0 + 100_000;
        long hang = T0 + 200_000;
        TrainingTraffic.Job job = sim.job("uid-it", List.of("n1", "n2"), List.of("erdma_0", "erdma_1"))
                .trains(T0 + 10_000, Long.MAX_VALUE).pause(hang, hang + 60_000);
        sim.record(job, JobRecord.RUNNING, T0).tweak(s -> s.node().equals("n2") && s.device().equals("erdma_1")
                && s.ts() >= linkDown && s.ts() < linkDown + 10_000 ? down(s) : s);
        List<Event> events = sim.run(T0, T0 + 330_000);

        KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.PARTITIONER_CLASS_CONFIG, NodePartitioner.class.getName()), new StringSerializer(), new ByteArraySerializer());
        open.add(producer);
        Outputs out = new Outputs(topics);
        open.add(out);

        StreamsApp first = start(settings, "first");
        long setupFed = feedUntilJoined(producer, topics, out, events, "uid-it");
        produce(producer, topics, events.stream().filter(e -> e.ts() >= setupFed && e.ts() <= hang + 20_000)
                .toList());
        await().atMost(Duration.ofSeconds(90)).until(() -> out.poll().alerts.stream()
                .anyMatch(a -> a.type().equals(Alert.STALLED_SYNC)));
        first.close();

        produce(producer, topics, events.stream().filter(e -> e.ts() > hang + 20_000).toList());
        start(settings, "second");
        await().atMost(Duration.ofSeconds(90)).until(() -> out.poll().alerts.stream()
                .anyMatch(a -> a.type().equals(Alert.STALLED_SYNC) && a.status().equals(Alert.RESOLVED)));
        await().atMost(Duration.ofSeconds(60)).alias("bandwidth windows up to T0 + 300 s").until(() -> out.poll()
                .bandwidth.stream().anyMatch(b -> b.windowStart() >= T0 + 300_000));

        Map<String, Long> perIncidentAndStatus = out.alerts.stream()
                .collect(Collectors.groupingBy(a -> a.type() + " " + a.status() + " " + a.id(), Collectors.counting()));
        assertThat(perIncidentAndStatus.values()).as("no alert twice: %s", out.alerts).containsOnly(1L);
        assertThat(out.alerts).extracting(a -> a.type() + " " + a.status()).containsExactlyInAnyOrder(
                "LINK_DOWN firing", "LINK_DOWN resolved", "STALLED_SYNC firing", "STALLED_SYNC resolved");
        Alert stall = out.alerts.stream().filter(a -> a.type().equals(Alert.STALLED_SYNC)).findFirst().orElseThrow();
        assertThat(stall.startsAt()).isBetween(hang - 1_000, hang + 1_000);

        List<Long> windows = out.bandwidth.stream().map(JobBandwidth::windowStart).sorted().toList();
        assertThat(windows).doesNotHaveDuplicates();
        for (int i = 1; i < windows.size(); i++) {
            assertThat(windows.get(i) - windows.get(i - 1)).as("no window lost").isEqualTo(10_000L);
        }
        assertThat(windows.get(windows.size() - 1) - windows.get(0)).isGreaterThanOrEqualTo(290_000L);
        assertThat(registry.find("kafka.stream.thread.commit.total").functionCounters()).isNotEmpty();
    }

    /**
     * What a job resumed from outlives the alert it raised, its resolution, the commits and a restart (a new instance
     * with an empty state directory, its state restored from the changelogs): a 12 s evaluation fires and resolves,
     * the app restarts, the same evaluation again is the job's own, and its hang says what it resumed from.
     */
    @Test
    void shouldKeepTheQuietsAJobResumedFromAcrossTheirAlertAndARestart() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        Map<String, Object> settings = settings(suffix, "rdmamon-it-" + suffix);
        settings.put(StreamsAppConfig.COMMIT_INTERVAL_CONFIG, 100);
        StreamsAppConfig.TopicNames topics = new StreamsAppConfig(settings).topics();
        TrainingTraffic sim = new TrainingTraffic();
        long hang = T0 + 300_000;
        TrainingTraffic.Job job = sim.job("uid-q", List.of("n1", "n2"), List.of("erdma_0"))
                .trains(T0 + 10_000, hang).pause(T0 + 100_000, T0 + 112_000).pause(T0 + 200_000, T0 + 212_000);
        sim.record(job, JobRecord.RUNNING, T0);
        List<Event> events = sim.run(T0, hang + 40_000);
        KafkaProducer<String, byte[]> producer = producer();
        open.add(producer);
        Outputs out = new Outputs(topics);
        open.add(out);

        StreamsApp first = start(settings, "first");
        long setupFed = feedUntilJoined(producer, topics, out, events, "uid-q");
        produce(producer, topics, events.stream().filter(e -> e.ts() >= setupFed && e.ts() < T0 + 150_000).toList());
        await().atMost(Duration.ofSeconds(90)).until(() -> out.poll().alerts.stream()
                .anyMatch(a -> a.type().equals(Alert.STALLED_SYNC) && a.status().equals(Alert.RESOLVED)));
        first.close();

        produce(producer, topics, events.stream().filter(e -> e.ts() >= T0 + 150_000).toList());
        start(settings, "second");
        await().atMost(Duration.ofSeconds(90)).until(() -> out.poll().alerts.stream()
                .anyMatch(a -> a.type().equals(Alert.STALLED_SYNC) && a.startsAt() > T0 + 250_000));
        out.poll();

        List<Alert> firing = out.alerts.stream().filter(a -> a.status().equals(Alert.FIRING)).toList();
        assertThat(firing).as("the first evaluation and the hang, not the second evaluation").hasSize(2)
                .satisfiesExactly(
                        eval -> assertThat(eval.startsAt()).isBetween(T0 + 99_000, T0 + 101_000),
                        stop -> {
                            assertThat(stop.startsAt()).isBetween(hang - 1_000, hang + 1_000);
                            assertThat(Long.parseLong(stop.labels().get("longestQuietMs"))).isBetween(11_000L,
                                    13_000L);
                        });
    }

    /**
     * The job first, then the setup seconds one by one until a sample of {@code uid} comes out joined with the job:
     * the assignment table (fed through its own repartition topic) is then in place for what follows. Returns the
     * event time fed up to.
     */
    private static long feedUntilJoined(KafkaProducer<String, byte[]> producer, StreamsAppConfig.TopicNames topics,
                                        Outputs out, List<Event> events, String uid) {
        long fed = T0;
        while (out.poll().linkHealth.stream().noneMatch(l -> uid.equals(l.job())) && fed < T0 + 10_000) {
            long from = fed;
            produce(producer, topics, events.stream().filter(e -> e.ts() >= from && e.ts() < from + 1_000).toList());
            fed += 1_000;
            await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> true);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> out.poll().linkHealth.stream()
                .anyMatch(l -> uid.equals(l.job())));
        return fed;
    }

    /**
     * The app's settings on the shared broker: its own topics (suffixed), and collector silence kept out, since it is
     * judged on the wall clock, which these tests compress.
     */
    static Map<String, Object> settings(String suffix, String applicationId) {
        Map<String, Object> settings = new HashMap<>();
        settings.put(StreamsAppConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers());
        settings.put(StreamsAppConfig.APPLICATION_ID_CONFIG, applicationId);
        settings.put(StreamsAppConfig.TOPICS_PARTITIONS_CONFIG, 2);
        for (String key : List.of(StreamsAppConfig.PORT_SAMPLES_TOPIC_CONFIG, StreamsAppConfig.HOST_SAMPLES_TOPIC_CONFIG,
                StreamsAppConfig.JOBS_TOPIC_CONFIG, StreamsAppConfig.JOB_BANDWIDTH_TOPIC_CONFIG,
                StreamsAppConfig.LINK_HEALTH_TOPIC_CONFIG, StreamsAppConfig.ALERTS_TOPIC_CONFIG,
                StreamsAppConfig.DEAD_LETTER_TOPIC_CONFIG)) {
            settings.put(key, key.substring("streams.topic.".length()) + "-" + suffix);
        }
        settings.put(DetectorConfig.COLLECTOR_SILENT_AFTER_CONFIG, 3_600_000);
        return settings;
    }

    private StreamsApp start(Map<String, Object> settings, String instance) {
        Map<String, Object> own = new HashMap<>(settings);
        own.put(StreamsAppConfig.STATE_DIR_CONFIG, stateDirs.resolve(instance).toString());
        StreamsApp app = new StreamsApp(new StreamsAppConfig(own), registry).start();
        open.add(app);
        await().atMost(Duration.ofSeconds(60)).until(() -> app.state() == KafkaStreams.State.RUNNING);
        return app;
    }

    static PortSample down(PortSample s) {
        return TrainingTraffic.down(s);
    }

    /** A producer to the shared broker that partitions by node, as the collector does. */
    static KafkaProducer<String, byte[]> producer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.PARTITIONER_CLASS_CONFIG, NodePartitioner.class.getName()),
                new StringSerializer(), new ByteArraySerializer());
    }

    static void produce(KafkaProducer<String, byte[]> producer, StreamsAppConfig.TopicNames topics,
                                List<Event> events) {
        for (Event e : events) {
            producer.send(record(topics, e, e.ts(), false));
        }
        producer.flush();
    }

    /**
     * The event as a record of its topic, stamped {@code timestamp} (null: the producer stamps the time of sending),
     * samples without a key when {@code keylessSamples}.
     */
    static ProducerRecord<String, byte[]> record(StreamsAppConfig.TopicNames topics, Event e, Long timestamp,
                                                 boolean keylessSamples) {
        if (e.port() != null) {
            return new ProducerRecord<>(topics.portSamples(), null, timestamp,
                    keylessSamples ? null : e.port().key(), Json.toBytes(e.port()));
        }
        if (e.host() != null) {
            return new ProducerRecord<>(topics.hostSamples(), null, timestamp,
                    keylessSamples ? null : e.host().key(), Json.toBytes(e.host()));
        }
        return new ProducerRecord<>(topics.jobs(), null, timestamp, e.job().uid(), Json.toBytes(e.job()));
    }

    /** Reads the output topics as a read_committed consumer, accumulating everything seen. */
    static final class Outputs implements AutoCloseable {
        final List<Alert> alerts = new ArrayList<>();
        final List<JobBandwidth> bandwidth = new ArrayList<>();
        final List<LinkHealth> linkHealth = new ArrayList<>();
        /** The oldest Kafka timestamp among the records read. */
        long oldestTimestamp = Long.MAX_VALUE;
        final StreamsAppConfig.TopicNames topics;
        private final KafkaConsumer<String, String> consumer;
        private final Map<String, Function<String, Object>> readers;

        Outputs(StreamsAppConfig.TopicNames topics) {
            this.topics = topics;
            consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    SharedKafka.bootstrapServers(), ConsumerConfig.GROUP_ID_CONFIG, "it-" + UUID.randomUUID(),
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                    ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                    new StringDeserializer(), new StringDeserializer());
            readers = Map.of(
                    topics.alerts(), v -> alerts.add(read(v, Alert.class)),
                    topics.jobBandwidth(), v -> bandwidth.add(read(v, JobBandwidth.class)),
                    topics.linkHealth(), v -> linkHealth.add(read(v, LinkHealth.class)));
            consumer.subscribe(List.copyOf(readers.keySet()));
        }

        Outputs poll() {
            consumer.poll(Duration.ofMillis(200)).forEach(r -> {
                readers.get(r.topic()).apply(r.value());
                oldestTimestamp = Math.min(oldestTimestamp, r.timestamp());
            });
            return this;
        }

        static <T> T read(String json, Class<T> type) {
            try {
                return Json.MAPPER.readValue(json, type);
            } catch (java.io.IOException e) {
                throw new AssertionError(e);
            }
        }

        @Override
        public void close() {
            consumer.close();
        }
    }
}
