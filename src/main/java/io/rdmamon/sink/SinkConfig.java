package io.rdmamon.sink;

import io.rdmamon.support.Backoff;
import io.rdmamon.config.ConfigLoader;
import io.rdmamon.influx.InfluxSettings;
import io.rdmamon.model.ContractLimits;
import io.rdmamon.model.Topics;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code rdmamon sink} settings: the {@code influx.*} connection ({@link InfluxSettings}), write batching and retry,
 * the topics, the metrics endpoint, and {@code kafka.*} passed to the consumer and the dead-letter producer.
 */
public final class SinkConfig extends AbstractConfig {
    public static final String KAFKA_PREFIX = "kafka.";

    public static final String BATCH_MAX_POINTS_CONFIG = "influx.batch.max.points";
    public static final int DEFAULT_BATCH_MAX_POINTS = 5_000;
    private static final String BATCH_MAX_POINTS_DOC = "At most this many points per HTTP write; a poll's points are "
            + "split into writes of this size and the offsets committed after the last one. InfluxData recommends "
            + "5,000-10,000.";

    public static final String WRITE_CONCURRENCY_CONFIG = "influx.write.concurrency";
    public static final int DEFAULT_WRITE_CONCURRENCY = 1;
    private static final String WRITE_CONCURRENCY_DOC = "Write requests in flight at once. With 1 the sink still "
            + "converts the next poll while a write is in flight; more helps only when InfluxDB takes parallel writes "
            + "faster (bench sink --concurrency N measures it). Memory holds this many polls plus one.";

    public static final String RETRY_BACKOFF_INITIAL_MS_CONFIG = "influx.retry.backoff.initial.ms";
    public static final long DEFAULT_RETRY_BACKOFF_INITIAL_MS = 500;
    private static final String RETRY_BACKOFF_INITIAL_MS_DOC = "First wait after a failed write; doubles on each "
            + "failure (e.g. 500 ms, 1 s, 2 s, ...) up to influx.retry.backoff.max.ms. Consumption pauses meanwhile.";

    public static final String RETRY_BACKOFF_MAX_MS_CONFIG = "influx.retry.backoff.max.ms";
    public static final long DEFAULT_RETRY_BACKOFF_MAX_MS = 30_000;
    private static final String RETRY_BACKOFF_MAX_MS_DOC = "Longest wait between write attempts. The sink retries "
            + "forever: an InfluxDB outage delays points, it does not lose them.";

    public static final String TOPIC_PORT_SAMPLES_CONFIG = "sink.topics.port.samples";
    public static final String TOPIC_HOST_SAMPLES_CONFIG = "sink.topics.host.samples";
    public static final String TOPIC_GPU_SAMPLES_CONFIG = "sink.topics.gpu.samples";
    public static final String TOPIC_JOB_BANDWIDTH_CONFIG = "sink.topics.job.bandwidth";
    public static final String TOPIC_LINK_HEALTH_CONFIG = "sink.topics.link.health";
    public static final String TOPIC_ALERTS_CONFIG = "sink.topics.alerts";
    public static final String TOPIC_DEAD_LETTER_CONFIG = "sink.topics.dead.letter";

    public static final String METRICS_PORT_CONFIG = "metrics.port";
    public static final int DEFAULT_METRICS_PORT = 9466;
    private static final String METRICS_PORT_DOC = "Port of the Prometheus /metrics endpoint; -1 disables it, 0 picks "
            + "a free port.";

    public static final String METRICS_BIND_ADDRESS_CONFIG = "metrics.bind.address";
    public static final String DEFAULT_METRICS_BIND_ADDRESS = "0.0.0.0";
    private static final String METRICS_BIND_ADDRESS_DOC = "Address the /metrics endpoint binds to.";

    /**
     * Consumer defaults the sink needs; {@code kafka.*} overrides them, except auto-commit, which stays off. A poll of
     * up to 5,000 records (4 MiB per partition, records are ~400 bytes) makes one full-size write. read_committed:
     * the stream app writes in transactions, and records of an aborted one are written again by its retry.
     */
    public static final Map<String, Object> DEFAULT_CONSUMER = Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092",
            ConsumerConfig.GROUP_ID_CONFIG, "rdmamon-sink",
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
            ConsumerConfig.MAX_POLL_RECORDS_CONFIG, DEFAULT_BATCH_MAX_POINTS,
            ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 * 1024 * 1024,
            ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");

    /** Prefix of the {@link ContractLimits} keys, e.g. {@code sink.contract.max.future.ms}. */
    public static final String CONTRACT_PREFIX = "sink.";

    public static final ConfigDef CONFIG = ContractLimits.define(InfluxSettings.define(new ConfigDef())
            .define(BATCH_MAX_POINTS_CONFIG, Type.INT, DEFAULT_BATCH_MAX_POINTS, ConfigDef.Range.between(1, 100_000),
                    Importance.MEDIUM, BATCH_MAX_POINTS_DOC)
            .define(WRITE_CONCURRENCY_CONFIG, Type.INT, DEFAULT_WRITE_CONCURRENCY, ConfigDef.Range.between(1, 16),
                    Importance.LOW, WRITE_CONCURRENCY_DOC)
            .define(RETRY_BACKOFF_INITIAL_MS_CONFIG, Type.LONG, DEFAULT_RETRY_BACKOFF_INITIAL_MS,
                    ConfigDef.Range.atLeast(1), Importance.LOW, RETRY_BACKOFF_INITIAL_MS_DOC)
            .define(RETRY_BACKOFF_MAX_MS_CONFIG, Type.LONG, DEFAULT_RETRY_BACKOFF_MAX_MS, ConfigDef.Range.atLeast(1),
                    Importance.LOW, RETRY_BACKOFF_MAX_MS_DOC)
            .define(TOPIC_PORT_SAMPLES_CONFIG, Type.STRING, Topics.PORT_SAMPLES, new ConfigDef.NonEmptyString(),
                    Importance.MEDIUM, "Topic of PortSample records.")
            .define(TOPIC_HOST_SAMPLES_CONFIG, Type.STRING, Topics.HOST_SAMPLES, new ConfigDef.NonEmptyString(),
                    Importance.MEDIUM, "Topic of HostIfaceSample records.")
            .define(TOPIC_GPU_SAMPLES_CONFIG, Type.STRING, Topics.GPU_SAMPLES, new ConfigDef.NonEmptyString(),
                    Importance.MEDIUM, "Topic of GpuSample records.")
            .define(TOPIC_JOB_BANDWIDTH_CONFIG, Type.STRING, Topics.JOB_BANDWIDTH, new ConfigDef.NonEmptyString(),
                    Importance.MEDIUM, "Topic of JobBandwidth records.")
            .define(TOPIC_LINK_HEALTH_CONFIG, Type.STRING, Topics.LINK_HEALTH, new ConfigDef.NonEmptyString(),
                    Importance.MEDIUM, "Topic of LinkHealth records.")
            .define(TOPIC_ALERTS_CONFIG, Type.STRING, Topics.ALERTS, new ConfigDef.NonEmptyString(),
                    Importance.MEDIUM, "Topic of Alert records.")
            .define(TOPIC_DEAD_LETTER_CONFIG, Type.STRING, Topics.DEAD_LETTER, new ConfigDef.NonEmptyString(),
                    Importance.MEDIUM, "Where unreadable records go: a DeadLetter envelope (the "
                    + "stream app's format) with the reason, also in header rdmamon.dead-letter.reason.")
            .define(METRICS_PORT_CONFIG, Type.INT, DEFAULT_METRICS_PORT, ConfigDef.Range.between(-1, 65_535),
                    Importance.LOW, METRICS_PORT_DOC)
            .define(METRICS_BIND_ADDRESS_CONFIG, Type.STRING, DEFAULT_METRICS_BIND_ADDRESS, Importance.LOW,
                    METRICS_BIND_ADDRESS_DOC), CONTRACT_PREFIX);

    private final InfluxSettings influx;

    public SinkConfig(Map<String, ?> originals) {
        super(CONFIG, originals, false);
        this.influx = InfluxSettings.from(this);
        if (getLong(RETRY_BACKOFF_INITIAL_MS_CONFIG) > getLong(RETRY_BACKOFF_MAX_MS_CONFIG)) {
            throw new ConfigException(RETRY_BACKOFF_INITIAL_MS_CONFIG + " (" + getLong(RETRY_BACKOFF_INITIAL_MS_CONFIG)
                    + ") must not exceed " + RETRY_BACKOFF_MAX_MS_CONFIG + " (" + getLong(RETRY_BACKOFF_MAX_MS_CONFIG)
                    + ")");
        }
    }

    /** Defaults < {@code file} < {@code RDMAMON_*} environment < {@code flags}. */
    public static SinkConfig load(Path file, Map<String, String> env, Map<String, ?> flags) {
        return new SinkConfig(ConfigLoader.load(CONFIG, file, env, flags, KAFKA_PREFIX));
    }

    public InfluxSettings influx() {
        return influx;
    }

    public int batchMaxPoints() {
        return getInt(BATCH_MAX_POINTS_CONFIG);
    }

    public int writeConcurrency() {
        return getInt(WRITE_CONCURRENCY_CONFIG);
    }

    public Backoff backoff() {
        return new Backoff(Duration.ofMillis(getLong(RETRY_BACKOFF_INITIAL_MS_CONFIG)),
                Duration.ofMillis(getLong(RETRY_BACKOFF_MAX_MS_CONFIG)));
    }

    /** The bounds port, host and GPU samples are checked against, as in the stream app. */
    public ContractLimits contractLimits() {
        return ContractLimits.from(this, CONTRACT_PREFIX);
    }

    public String portSamplesTopic() {
        return getString(TOPIC_PORT_SAMPLES_CONFIG);
    }

    public String hostSamplesTopic() {
        return getString(TOPIC_HOST_SAMPLES_CONFIG);
    }

    public String gpuSamplesTopic() {
        return getString(TOPIC_GPU_SAMPLES_CONFIG);
    }

    public String jobBandwidthTopic() {
        return getString(TOPIC_JOB_BANDWIDTH_CONFIG);
    }

    public String linkHealthTopic() {
        return getString(TOPIC_LINK_HEALTH_CONFIG);
    }

    public String alertsTopic() {
        return getString(TOPIC_ALERTS_CONFIG);
    }

    public String deadLetterTopic() {
        return getString(TOPIC_DEAD_LETTER_CONFIG);
    }

    public List<String> inputTopics() {
        return List.of(portSamplesTopic(), hostSamplesTopic(), gpuSamplesTopic(), jobBandwidthTopic(), linkHealthTopic(), alertsTopic());
    }

    public int metricsPort() {
        return getInt(METRICS_PORT_CONFIG);
    }

    public String metricsBindAddress() {
        return getString(METRICS_BIND_ADDRESS_CONFIG);
    }

    public Map<String, Object> consumerProps() {
        Map<String, Object> props = new HashMap<>(DEFAULT_CONSUMER);
        props.putAll(ConfigLoader.withPrefix(originals(), KAFKA_PREFIX));
        // offsets are committed by the sink after InfluxDB accepted the points, never in the background
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        return props;
    }

    /** For the dead-letter producer: the shared {@code kafka.*} settings a producer knows (security, bootstrap). */
    public Map<String, Object> producerProps() {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, DEFAULT_CONSUMER.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG));
        ConfigLoader.withPrefix(originals(), KAFKA_PREFIX).forEach((key, value) -> {
            if (ProducerConfig.configNames().contains(key)) {
                props.put(key, value);
            }
        });
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return props;
    }
}
