package io.rdmamon.streams;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.jobs.JobAssignments;
import io.rdmamon.model.Alert;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.Json;
import io.rdmamon.model.NodePartitioner;
import io.rdmamon.testing.SharedKafka;
import io.rdmamon.testing.TrainingTraffic;
import io.rdmamon.testing.TrainingTraffic.Event;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
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
 * {@link EventTimeTest} on a real broker: the same records produced three ways, each to an app of its own running side
 * by side, give the same alerts and job-bandwidth windows. Stamped with their own times (as rdmamon's producers do),
 * with the time of sending (kcat, a bridge: here a backlog recorded at the start of the year sent now), and to
 * topics with {@code message.timestamp.type=LogAppendTime}. The job's record goes first, as it does live (the job
 * watcher publishes it when the pod starts, before its traffic); the samples then follow as one backlog.
 */
class EventTimeBrokerTest {
    /** 2026-01-01: months before any run of this test, as the recordings a user replays. */
    static final long T0 = 1_767_225_600_000L;

    @TempDir
    Path stateDirs;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private enum Stamps { OWN, SENT, APPENDED }

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
            settings.put(StreamsAppConfig.STATE_DIR_CONFIG, stateDirs.resolve(suffix).toString());
            StreamsAppConfig cfg = new StreamsAppConfig(settings);
            topics = cfg.topics();
            if (stamps == Stamps.APPENDED) {
                Map<String, String> append = Map.of(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "LogAppendTime");
                Map<String, String> compactedAppend = new HashMap<>(append);
                compactedAppend.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
                try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                        SharedKafka.bootstrapServers()))) {
                    admin.createTopics(List.of(new NewTopic(topics.portSamples(), 2, (short) 1).configs(append),
                            new NewTopic(topics.hostSamples(), 2, (short) 1).configs(append),
                            new NewTopic(topics.jobs(), 2, (short) 1).configs(compactedAppend))).all().get();
                }
            }
            StreamsApp app = new StreamsApp(cfg, registry).start();
            open.add(app);
            out = new StreamsAppTest.Outputs(topics);
            open.add(out);
            await().atMost(Duration.ofSeconds(60)).until(() -> app.state() == KafkaStreams.State.RUNNING);
        }

        void produce(KafkaProducer<String, byte[]> producer, List<Event> events) {
            for (Event e : events) {
                // null: the producer stamps the time of sending
                Long ts = stamps == Stamps.SENT ? null : e.ts();
                if (e.port() != null) {
                    producer.send(new ProducerRecord<>(topics.portSamples(), null, ts, e.port().key(),
                            Json.toBytes(e.port())));
                } else if (e.host() != null) {
                    producer.send(new ProducerRecord<>(topics.hostSamples(), null, ts, e.host().key(),
                            Json.toBytes(e.host())));
                } else {
                    producer.send(new ProducerRecord<>(topics.jobs(), null, ts, e.job().uid(),
                            Json.toBytes(e.job())));
                }
            }
            producer.flush();
        }

        long holdChangesCommitted() {
            return SharedKafka.committed(SharedKafka.bootstrapServers(), appId,
                    appId + "-" + JobAssignments.REPARTITION + "-repartition");
        }

        List<String> alerts() {
            return out.alerts.stream().map(a -> a.type() + " " + a.status() + " " + a.startsAt()).sorted().toList();
        }

        List<String> windows() {
            return out.bandwidth.stream().map(b -> b.windowStart() - T0 + " " + Math.round(b.txBytesPerSec()) + " "
                    + Math.round(b.rxBytesPerSec())).sorted().toList();
        }
    }

    @Test
    void shouldGiveTheSameAlertsAndWindowsWhateverTheRecordTimestampsOnARealBroker() throws Exception {
        TrainingTraffic sim = new TrainingTraffic();
        long hang = T0 + 120_000;
        TrainingTraffic.Job job = sim.job("uid-et", List.of("n1", "n2"), List.of("mlx5_0", "mlx5_1"))
                .trains(T0 + 10_000, Long.MAX_VALUE).pause(hang, hang + 60_000);
        sim.record(job, JobRecord.RUNNING, T0);
        List<Event> events = sim.run(T0, T0 + 240_000);
        List<Event> jobs = events.stream().filter(e -> e.job() != null).toList();
        List<Event> samples = events.stream().filter(e -> e.job() == null).toList();

        KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers(),
                ProducerConfig.PARTITIONER_CLASS_CONFIG, NodePartitioner.class.getName()),
                new StringSerializer(), new ByteArraySerializer());
        open.add(producer);
        List<Run> runs = new ArrayList<>();
        for (Stamps stamps : Stamps.values()) {
            runs.add(new Run(stamps));
        }
        for (Run run : runs) {
            run.produce(producer, jobs);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> runs.stream().allMatch(r -> r.holdChangesCommitted() > 0));
        for (Run run : runs) {
            run.produce(producer, samples);
        }
        for (Run run : runs) {
            await().atMost(Duration.ofSeconds(90)).alias(run.stamps + ": the resolved stall and windows to the end")
                    .until(() -> run.out.poll().alerts.stream().anyMatch(a -> a.type().equals(Alert.STALLED_SYNC)
                            && a.status().equals(Alert.RESOLVED)) && run.out.bandwidth.stream()
                            .anyMatch(b -> b.windowStart() >= T0 + 220_000));
        }
        Thread.sleep(1_000); // anything written twice would show by now
        runs.forEach(r -> r.out.poll());

        Run own = runs.get(0);
        assertThat(own.alerts()).containsExactly("STALLED_SYNC firing " + hang, "STALLED_SYNC resolved " + hang);
        assertThat(own.windows()).hasSizeGreaterThan(20);
        for (Run other : runs.subList(1, runs.size())) {
            assertThat(other.alerts()).as(other.stamps + " alerts").isEqualTo(own.alerts());
            assertThat(other.windows()).as(other.stamps + " windows").isEqualTo(own.windows());
            var skew = other.registry.find("rdmamon.streams.record.timestamp.skew")
                    .tag("topic", other.topics.portSamples()).summary();
            assertThat(skew.max()).as(other.stamps + ": the records were stamped months after their time")
                    .isGreaterThan(86_400);
        }
    }
}
