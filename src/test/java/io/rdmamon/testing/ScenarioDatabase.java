package io.rdmamon.testing;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.influx.InfluxQl;
import io.rdmamon.influx.InfluxSettings;
import io.rdmamon.influx.InfluxSetup;
import io.rdmamon.influx.Schema;
import io.rdmamon.model.Json;
import io.rdmamon.sink.InfluxSink;
import io.rdmamon.sink.SinkConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.influxdb.InfluxDB;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@link ClusterScenario} run end to end once per test JVM: its records are published to Kafka topics on the
 * shared broker, the real {@link InfluxSink} writes them into a database set up by {@code influx init} on the shared
 * influxd, and the 1-minute rollups are computed with the continuous queries' own {@code SELECT ... INTO} (continuous
 * queries only cover the live clock, the scenario lies in the past). Dashboards, alert rules and the capacity report
 * are then queried against it; nobody writes to it afterwards.
 */
public final class ScenarioDatabase {
    /**
     * How old the scenario's end may be for tests of "now" panels: the silent-collector queries look 2 minutes back
     * from the server's clock, and other test classes may run between two users of the shared scenario.
     */
    private static final Duration FRESH_FOR = Duration.ofSeconds(60);
    private static ScenarioDatabase loaded;

    public final ClusterScenario scenario;
    public final InfluxSettings settings;
    public final InfluxDB client;

    private ScenarioDatabase(ClusterScenario scenario, InfluxSettings settings, InfluxDB client) {
        this.scenario = scenario;
        this.settings = settings;
        this.client = client;
    }

    /** The loaded scenario, whatever its age; the first call publishes, sinks and rolls it up (a few seconds). */
    public static synchronized ScenarioDatabase get() {
        if (loaded == null) {
            loaded = load();
        }
        return loaded;
    }

    /** The loaded scenario if it ended less than a minute ago, else a new one (the old database is dropped). */
    public static synchronized ScenarioDatabase fresh() {
        if (loaded != null && System.currentTimeMillis() - loaded.scenario.end() > FRESH_FOR.toMillis()) {
            InfluxQl.execute(loaded.client, loaded.database(), "DROP DATABASE " + InfluxQl.quote(loaded.database()));
            loaded.client.close();
            loaded = null;
        }
        return get();
    }

    public String url() {
        return settings.url();
    }

    public String database() {
        return settings.database();
    }

    private static ScenarioDatabase load() {
        Map<String, Object> influx = Map.of(InfluxSettings.URL_CONFIG, LocalInfluxd.shared().url(),
                InfluxSettings.DATABASE_CONFIG, "scenario_" + UUID.randomUUID().toString().substring(0, 8));
        InfluxSettings settings = new SinkConfig(influx).influx();
        InfluxDB client = LocalInfluxd.client(LocalInfluxd.shared());
        InfluxSetup setup = new InfluxSetup(client, settings);
        setup.apply();

        // the records end now, so that "now" panels (silent collectors, ports down) have something to show
        ClusterScenario scenario = new ClusterScenario(System.currentTimeMillis());
        sinkInto(scenario, influx, client, settings.retentionPolicy());
        setup.backfill(Duration.ofMillis(System.currentTimeMillis() - scenario.start() + 60_000));
        return new ScenarioDatabase(scenario, settings, client);
    }

    /**
     * Publishes {@code scenario} to fresh topics on the shared broker and runs the real {@link InfluxSink} with the
     * {@code influx.*} settings {@code influx} until {@code reader} counts every record's point in the database,
     * under retention policy {@code rp} ({@code null}: unqualified, for InfluxDB 3). Works for any server that takes
     * the v1 write API, so the 2.x / 3 Core container tests load the same scenario through the same pipeline.
     */
    public static void sinkInto(ClusterScenario scenario, Map<String, Object> influx, InfluxDB reader, String rp) {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String bootstrap = SharedKafka.bootstrapServers();
        Map<String, String> topics = Map.of(
                SinkConfig.TOPIC_PORT_SAMPLES_CONFIG, "scenario-port-" + suffix,
                SinkConfig.TOPIC_HOST_SAMPLES_CONFIG, "scenario-host-" + suffix,
                SinkConfig.TOPIC_GPU_SAMPLES_CONFIG, "scenario-gpu-" + suffix,
                SinkConfig.TOPIC_JOB_BANDWIDTH_CONFIG, "scenario-job-" + suffix,
                SinkConfig.TOPIC_LINK_HEALTH_CONFIG, "scenario-link-" + suffix,
                SinkConfig.TOPIC_ALERTS_CONFIG, "scenario-alert-" + suffix,
                SinkConfig.TOPIC_DEAD_LETTER_CONFIG, "scenario-dead-" + suffix);
        SharedKafka.createTopics(bootstrap, 1, topics.values().toArray(String[]::new));
        Map<String, Object> props = new HashMap<>(topics);
        props.putAll(influx);
        props.put(SinkConfig.METRICS_PORT_CONFIG, "-1");
        props.put("kafka.bootstrap.servers", bootstrap);
        props.put("kafka.group.id", "scenario-sink-" + suffix);
        SinkConfig config = new SinkConfig(props);
        // not idempotent: the in-JVM broker has been seen to reject a burst to a just-created topic with
        // OUT_OF_ORDER_SEQUENCE_NUMBER forever (KAFKA-15591 family); a retried duplicate is one point written twice
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.LINGER_MS_CONFIG, 20,
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false, ProducerConfig.ACKS_CONFIG, "all"),
                new StringSerializer(), new ByteArraySerializer())) {
            scenario.portSamples.forEach(s -> producer.send(new ProducerRecord<>(config.portSamplesTopic(), s.key(),
                    Json.toBytes(s))));
            scenario.hostSamples.forEach(s -> producer.send(new ProducerRecord<>(config.hostSamplesTopic(), s.key(),
                    Json.toBytes(s))));
            scenario.gpuSamples.forEach(s -> producer.send(new ProducerRecord<>(config.gpuSamplesTopic(), s.key(),
                    Json.toBytes(s))));
            scenario.jobBandwidth.forEach(b -> producer.send(new ProducerRecord<>(config.jobBandwidthTopic(),
                    b.uid(), Json.toBytes(b))));
            scenario.linkHealth.forEach(h -> producer.send(new ProducerRecord<>(config.linkHealthTopic(),
                    h.node() + "/" + h.device() + "/" + h.port(), Json.toBytes(h))));
            scenario.alerts.forEach(a -> producer.send(new ProducerRecord<>(config.alertsTopic(), a.id(),
                    Json.toBytes(a))));
        }
        try (InfluxSink sink = new InfluxSink(config, new SimpleMeterRegistry())) {
            Thread thread = new Thread(sink, "scenario-sink-" + suffix);
            thread.start();
            String db = config.influx().database();
            // a server may answer "not found" until the first point of a measurement has arrived
            await().atMost(Duration.ofSeconds(90)).ignoreExceptions().untilAsserted(() -> assertThat(List.of(
                    LocalInfluxd.count(reader, db, rp, Schema.RDMA_PORT.name(), Schema.INTERVAL_SECONDS),
                    LocalInfluxd.count(reader, db, rp, Schema.HOST_IFACE.name(), Schema.INTERVAL_SECONDS),
                    LocalInfluxd.count(reader, db, rp, Schema.GPU_SAMPLE.name(), Schema.INTERVAL_SECONDS),
                    LocalInfluxd.count(reader, db, rp, Schema.JOB_BANDWIDTH.name(), Schema.BYTES_PER_SEC),
                    LocalInfluxd.count(reader, db, rp, Schema.LINK_HEALTH.name(), Schema.ACTIVE),
                    LocalInfluxd.count(reader, db, rp, Schema.ALERT.name(), Schema.FIRING)))
                    .containsExactly((long) scenario.portSamples.size(), (long) scenario.hostSamples.size(),
                            (long) scenario.gpuSamples.size(),
                            (long) scenario.jobBandwidth.size(), (long) scenario.linkHealth.size(),
                            (long) scenario.alerts.size()));
            sink.close();
            thread.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
