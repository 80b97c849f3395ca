package io.rdmamon.sink;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.influx.InfluxQl;
import io.rdmamon.influx.InfluxSettings;
import io.rdmamon.influx.InfluxSetup;
import io.rdmamon.influx.InfluxdProcess;
import io.rdmamon.model.Json;
import io.rdmamon.support.KafkaOffsets;
import io.rdmamon.testing.LocalInfluxd;
import io.rdmamon.testing.SharedKafka;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.influxdb.InfluxDB;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * One sink under test: its own topics, consumer group and database on the shared broker and a given influxd, the
 * database initialised with {@code influx init}, the sink running on its own thread.
 */
final class SinkFixture implements AutoCloseable {
    final String bootstrap = SharedKafka.bootstrapServers();
    final String suffix = UUID.randomUUID().toString().substring(0, 8);
    final String portTopic = "port-" + suffix;
    final String hostTopic = "host-" + suffix;
    final String gpuTopic = "gpu-" + suffix;
    final String jobTopic = "job-" + suffix;
    final String linkTopic = "link-" + suffix;
    final String alertTopic = "alert-" + suffix;
    final String deadTopic = "dead-" + suffix;
    final String groupId = "sink-test-" + suffix;
    final String database = "sink_" + suffix;
    final InfluxdProcess influxd;
    final InfluxDB client;
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final KafkaProducer<String, byte[]> producer;
    private InfluxSink sink;
    private Thread thread;

    SinkFixture(InfluxdProcess influxd) {
        this.influxd = influxd;
        SharedKafka.createTopics(bootstrap, 1, portTopic, hostTopic, gpuTopic, jobTopic, linkTopic, alertTopic, deadTopic);
        this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.LINGER_MS_CONFIG, 5), new StringSerializer(), new ByteArraySerializer());
        this.client = LocalInfluxd.client(influxd);
    }

    /** Sink settings for this fixture; {@code extra} overrides them. */
    Map<String, Object> settings(Map<String, ?> extra) {
        Map<String, Object> props = new HashMap<>();
        props.put(InfluxSettings.URL_CONFIG, influxd.url());
        props.put(InfluxSettings.DATABASE_CONFIG, database);
        props.put(SinkConfig.TOPIC_PORT_SAMPLES_CONFIG, portTopic);
        props.put(SinkConfig.TOPIC_HOST_SAMPLES_CONFIG, hostTopic);
        props.put(SinkConfig.TOPIC_GPU_SAMPLES_CONFIG, gpuTopic);
        props.put(SinkConfig.TOPIC_JOB_BANDWIDTH_CONFIG, jobTopic);
        props.put(SinkConfig.TOPIC_LINK_HEALTH_CONFIG, linkTopic);
        props.put(SinkConfig.TOPIC_ALERTS_CONFIG, alertTopic);
        props.put(SinkConfig.TOPIC_DEAD_LETTER_CONFIG, deadTopic);
        props.put(SinkConfig.RETRY_BACKOFF_INITIAL_MS_CONFIG, "100");
        props.put(SinkConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "1000");
        props.put(SinkConfig.METRICS_PORT_CONFIG, "-1");
        props.put("kafka.bootstrap.servers", bootstrap);
        props.put("kafka.group.id", groupId);
        props.putAll(extra);
        return props;
    }

    SinkFixture init() {
        SinkConfig config = new SinkConfig(settings(Map.of()));
        new InfluxSetup(client, config.influx()).apply();
        return this;
    }

    SinkFixture startSink(SinkConfig config) {
        sink = new InfluxSink(config, registry);
        thread = new Thread(sink, "sink-under-test-" + suffix);
        thread.start();
        return this;
    }

    SinkFixture startSink() {
        return startSink(new SinkConfig(settings(Map.of())));
    }

    void send(String topic, String key, Object record) {
        sendRaw(topic, key, Json.toBytes(record));
    }

    void sendRaw(String topic, String key, byte[] value) {
        producer.send(new ProducerRecord<>(topic, key, value));
    }

    /** Sends {@code records} to {@code topic} in one transaction, as the stream app writes its outputs. */
    void sendInTransaction(String topic, String key, List<?> records) {
        try (KafkaProducer<String, byte[]> transactional = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "sink-test-tx-" + suffix), new StringSerializer(),
                new ByteArraySerializer())) {
            transactional.initTransactions();
            transactional.beginTransaction();
            records.forEach(r -> transactional.send(new ProducerRecord<>(topic, key, Json.toBytes(r))));
            transactional.commitTransaction();
        }
    }

    /** The end offsets of {@code topic}, summed over its partitions (a transaction marker counts as one). */
    long endOffset(String topic) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            return KafkaOffsets.endOffsets(admin, List.of(topic)).values().stream().mapToLong(Long::longValue).sum();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the end offsets of " + topic, e);
        }
    }

    void flush() {
        producer.flush();
    }

    long count(String measurement, String field) {
        return LocalInfluxd.count(client, database, "rp_raw", measurement, field);
    }

    double counter(String name) {
        return registry.find(name).counters().stream().mapToDouble(Counter::count).sum();
    }

    /** The sink group's committed offsets, summed over all partitions of {@code topic}. */
    long committed(String topic) {
        return committed(groupId, topic);
    }

    long committed(String group, String topic) {
        return SharedKafka.committed(bootstrap, group, topic);
    }

    void stopSink() throws InterruptedException {
        if (sink != null) {
            sink.close();
            thread.join(30_000);
            sink = null;
        }
    }

    @Override
    public void close() throws Exception {
        stopSink();
        producer.close();
        try {
            InfluxQl.execute(client, database, "DROP DATABASE \"" + database + "\"");
        } catch (RuntimeException e) {
            // best effort: a stopped or password-protected server is thrown away with its directory anyway
        }
        client.close();
    }
}
