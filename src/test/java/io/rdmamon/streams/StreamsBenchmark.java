package io.rdmamon.streams;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.model.Alert;
import io.rdmamon.model.Json;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.NodePartitioner;
import io.rdmamon.testing.SharedKafka;
import io.rdmamon.testing.TrainingTraffic;
import io.rdmamon.testing.TrainingTraffic.Event;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.IntStream;

/**
 * Figures for the README, not a test of pass/fail (surefire does not pick it up by name):
 * <pre>mvn -q -B test -Dtest=StreamsBenchmark</pre>
 * prints to stderr (and target/surefire-reports/...StreamsBenchmark-output.txt): samples per second through the
 * real broker with exactly-once, end-to-end latency from a sample to its alert, and state bytes per job.
 */
class StreamsBenchmark {
    @TempDir
    Path stateDir;

    private static Map<String, Object> settings(String suffix, Path stateDir) {
        Map<String, Object> s = new HashMap<>();
        s.put(StreamsAppConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers());
        s.put(StreamsAppConfig.APPLICATION_ID_CONFIG, "bench-" + suffix);
        s.put(StreamsAppConfig.STATE_DIR_CONFIG, stateDir.toString());
        for (String key : List.of(StreamsAppConfig.PORT_SAMPLES_TOPIC_CONFIG, StreamsAppConfig.HOST_SAMPLES_TOPIC_CONFIG,
                StreamsAppConfig.JOBS_TOPIC_CONFIG, StreamsAppConfig.JOB_BANDWIDTH_TOPIC_CONFIG,
                StreamsAppConfig.LINK_HEALTH_TOPIC_CONFIG, StreamsAppConfig.ALERTS_TOPIC_CONFIG,
                StreamsAppConfig.DEAD_LETTER_TOPIC_CONFIG)) {
            s.put(key, key.substring("streams.topic.".length()) + "-" + suffix);
        }
        return s;
    }

    /** Variants: -Dbench.streams.commit.interval.ms=1000 -Dbench.streams.state.store.type=rocksdb ... */
    private static void overrides(Map<String, Object> settings) {
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("bench."))
                .forEach(k -> settings.put(k.substring("bench.".length()), System.getProperty(k)));
    }

    /** 16 nodes × 4 devices, 4 jobs of 4 nodes, 10 minutes at 1 Hz: produced first, then consumed as a backlog. */
    @Test
    void throughput() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        Map<String, Object> s = settings(suffix, stateDir);
        overrides(s);
        StreamsAppConfig cfg = new StreamsAppConfig(s);
        long seconds = Long.getLong("benchSeconds", 600);
        long t0 = (System.currentTimeMillis() / 1000) * 1000 - 900_000;
        TrainingTraffic sim = new TrainingTraffic();
        List<String> devices = List.of("erdma_0", "erdma_1", "erdma_2", "erdma_3");
        for (int j = 0; j < 4; j++) {
            int first = j * 4;
            List<String> nodes = IntStream.range(first, first + 4).mapToObj(i -> "node-" + i).toList();
            sim.record(sim.job("job-" + j, nodes, devices).trains(t0 + 5_000, Long.MAX_VALUE), JobRecord.RUNNING, t0);
        }
        List<Event> events = sim.run(t0, t0 + seconds * 1000);
        StreamsTopics.ensure(cfg);
        produce(cfg, events);
        long portSamples = recordsIn(cfg.topics().portSamples());

        try (StreamsApp app = new StreamsApp(cfg, new SimpleMeterRegistry());
             KafkaConsumer<String, String> out = consumer(cfg.topics().linkHealth())) {
            long start = System.nanoTime();
            app.start();
            long seen = 0;
            long firstOutput = 0;
            // the last join-grace worth of samples (2 s × 64 ports) stays buffered until newer samples arrive
            long expected = portSamples - 3 * 64;
            long lastReport = start;
            while (seen < expected && System.nanoTime() - start < 600_000_000_000L) {
                if (System.nanoTime() - lastReport > 10_000_000_000L) {
                    lastReport = System.nanoTime();
                    System.err.printf("progress %d of %d after %.0f s%n", seen, expected, (lastReport - start) / 1e9);
                }
                int n = out.poll(Duration.ofMillis(200)).count();
                if (n > 0 && firstOutput == 0) {
                    firstOutput = System.nanoTime();
                }
                seen += n;
            }
            double total = (System.nanoTime() - start) / 1e9;
            double afterFirst = (System.nanoTime() - firstOutput) / 1e9;
            System.err.printf("THROUGHPUT %d port samples + ~%d host samples (64 ports, 4 jobs, %d s at 1 Hz), "
                            + "1 stream thread, exactly_once_v2, overrides %s: %.1f s from start (%.0f samples/s), %.1f s "
                            + "from first output (%.0f samples/s)%n", seen, events.stream().filter(e -> e.host() != null).count(), seconds,
                    System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("bench.")).toList(),
                    total,
                    portSamples / total, afterFirst, portSamples / afterFirst);
        }
    }

    /** Samples produced live at 1 Hz with ts = now; a hang; wall time from the triggering sample to the alert. */
    @Test
    void latency() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        Map<String, Object> s = settings(suffix, stateDir);
        s.put("streams.stall.warmup.ms", 20_000);
        s.put("streams.stall.warmup.active.ms", 10_000);
        overrides(s);
        StreamsAppConfig cfg = new StreamsAppConfig(s);
        long t0 = (System.currentTimeMillis() / 1000) * 1000;
        long hang = t0 + 40_000;
        TrainingTraffic sim = new TrainingTraffic();
        sim.record(sim.job("job-live", List.of("n1", "n2"), List.of("erdma_0", "erdma_1"))
                .trains(t0 + 2_000, Long.MAX_VALUE).pause(hang, Long.MAX_VALUE), JobRecord.RUNNING, t0);
        List<Event> events = sim.run(t0, t0 + 70_000);
        StreamsTopics.ensure(cfg);
        try (StreamsApp app = new StreamsApp(cfg, new SimpleMeterRegistry());
             KafkaConsumer<String, String> alerts = consumer(cfg.topics().alerts());
             KafkaProducer<String, byte[]> producer = producer()) {
            app.start();
            while (app.state() != KafkaStreams.State.RUNNING) {
                Thread.sleep(100);
            }
            List<long[]> latencies = new ArrayList<>();
            int next = 0;
            while (System.currentTimeMillis() < t0 + 75_000) {
                while (next < events.size() && events.get(next).ts() <= System.currentTimeMillis()) {
                    send(producer, cfg, events.get(next++));
                }
                producer.flush();
                for (ConsumerRecord<String, String> r : alerts.poll(Duration.ofMillis(100))) {
                    Alert a = Json.MAPPER.readValue(r.value(), Alert.class);
                    latencies.add(new long[]{System.currentTimeMillis() - a.detectedAt(), a.detectedAt() - hang});
                    System.err.printf("LATENCY %s %s: detectedAt %d ms after the hang; alert on the topic %d ms "
                            + "after the sample that triggered it was taken%n", a.type(), a.status(),
                            a.detectedAt() - hang, System.currentTimeMillis() - a.detectedAt());
                }
            }
        }
    }

    /** State kept per job: a 4-node × 8-device job after 10 minutes, store by store (TopologyTestDriver). */
    @Test
    void stateSizePerJob() {
        long t0 = 1_700_000_000_000L;
        TrainingTraffic sim = new TrainingTraffic();
        List<String> devices = IntStream.range(0, 8).mapToObj(i -> "mlx5_" + i).toList();
        sim.record(sim.job("job-a", List.of("n1", "n2", "n3", "n4"), devices).trains(t0 + 5_000, Long.MAX_VALUE),
                JobRecord.RUNNING, t0);
        Map<String, Object> s = new HashMap<>(Map.of(StreamsAppConfig.STATE_DIR_CONFIG, stateDir.toString(),
                StreamsAppConfig.STATE_STORE_TYPE_CONFIG, "in_memory"));
        StreamsAppConfig cfg = new StreamsAppConfig(s);
        try (TopologyTestDriver driver = new TopologyTestDriver(RdmamonTopology.build(cfg, new SimpleMeterRegistry()),
                RdmamonTopology.streamsConfig(cfg), Instant.ofEpochMilli(t0))) {
            var ports = driver.createInputTopic(cfg.topics().portSamples(), new StringSerializer(),
                    new ByteArraySerializer());
            var jobs = driver.createInputTopic(cfg.topics().jobs(), new StringSerializer(), new ByteArraySerializer());
            long wall = t0;
            for (Event e : sim.run(t0, t0 + 600_000)) {
                if (e.ts() - wall >= 1_000) {
                    driver.advanceWallClockTime(Duration.ofMillis(e.ts() - wall));
                    wall = e.ts();
                }
                if (e.job() != null) {
                    jobs.pipeInput(e.job().uid(), Json.toBytes(e.job()), e.ts());
                } else if (e.port() != null) {
                    ports.pipeInput(e.port().key(), Json.toBytes(e.port()), e.ts());
                }
            }
            Map<String, long[]> sizes = new TreeMap<>();
            for (String name : driver.getAllStateStores().keySet()) {
                KeyValueStore<Object, Object> store;
                try {
                    store = driver.getKeyValueStore(name);
                } catch (IllegalArgumentException notKeyValue) {
                    continue;
                }
                if (store == null) {
                    continue;
                }
                long entries = 0;
                long bytes = 0;
                try (KeyValueIterator<Object, Object> it = store.all()) {
                    while (it.hasNext()) {
                        var kv = it.next();
                        entries++;
                        bytes += String.valueOf(kv.key).getBytes(StandardCharsets.UTF_8).length
                                + Json.toBytes(kv.value).length;
                    }
                }
                sizes.put(name, new long[]{entries, bytes});
            }
            long total = sizes.values().stream().mapToLong(v -> v[1]).sum();
            sizes.forEach((name, v) -> System.err.printf("STATE %-28s %5d entries %8d bytes%n", name, v[0], v[1]));
            System.err.printf("STATE total for one job of 32 ports (+ its ports' link state): %d bytes%n", total);
        }
    }

    /** What the topic really holds: the test broker may refuse a batch under load; count, do not assume. */
    private static long recordsIn(String topic) {
        try (KafkaConsumer<String, String> c = consumer(topic)) {
            var partitions = c.partitionsFor(topic).stream()
                    .map(p -> new org.apache.kafka.common.TopicPartition(topic, p.partition())).toList();
            return c.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private static KafkaConsumer<String, String> consumer(String topic) {
        KafkaConsumer<String, String> c = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "bench-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"), new StringDeserializer(),
                new StringDeserializer());
        c.subscribe(List.of(topic));
        return c;
    }

    private static KafkaProducer<String, byte[]> producer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 5,
                ProducerConfig.PARTITIONER_CLASS_CONFIG, NodePartitioner.class.getName()), new StringSerializer(),
                new ByteArraySerializer());
    }

    private static void produce(StreamsAppConfig cfg, List<Event> events) {
        // plain acks=1 producer: the test broker's idempotent-producer bookkeeping trips under load (out of order
        // sequence), and a benchmark only needs the records
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "1",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false, ProducerConfig.LINGER_MS_CONFIG, 20),
                new StringSerializer(), new ByteArraySerializer())) {
            events.forEach(e -> send(producer, cfg, e));
        }
    }

    private static void send(KafkaProducer<String, byte[]> producer, StreamsAppConfig cfg, Event e) {
        StreamsAppConfig.TopicNames t = cfg.topics();
        if (e.port() != null) {
            producer.send(new ProducerRecord<>(t.portSamples(), null, e.ts(), e.port().key(), Json.toBytes(e.port())));
        } else if (e.host() != null) {
            producer.send(new ProducerRecord<>(t.hostSamples(), null, e.ts(), e.host().key(), Json.toBytes(e.host())));
        } else {
            producer.send(new ProducerRecord<>(t.jobs(), null, e.ts(), e.job().uid(), Json.toBytes(e.job())));
        }
    }
}
