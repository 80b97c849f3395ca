package io.rdmamon.collector.publish;

import io.rdmamon.config.ConfigLoader;
import io.rdmamon.model.NodePartitioner;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.ValidString;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Settings of the collector's Kafka output: the buffer that rides out a broker outage, and the producer. Any Kafka
 * producer setting passes through with the prefix {@code kafka.} (TLS and SASL included, e.g.
 * {@code kafka.security.protocol=SASL_SSL}, {@code kafka.sasl.jaas.config=...}); the {@code kafka.*} keys defined here
 * are the ones where rdmamon's default differs from Kafka's.
 */
public final class PublishConfig extends AbstractConfig {
    public static final String KAFKA_PREFIX = "kafka.";
    private static final long MIB = 1024 * 1024;

    public static final String MEMORY_BYTES_CONFIG = "collector.buffer.memory.bytes";
    public static final long DEFAULT_MEMORY_BYTES = 16 * MIB;
    private static final String MEMORY_BYTES_DOC = "Memory for records not yet acknowledged by Kafka (in flight "
            + "included). Beyond it the oldest records are kept on disk only, in the spill log. A typical port record takes about "
            + "600 bytes here, so 16 MiB holds about 28,000 records: 30 minutes of 16 ports at a 1 s interval.";

    public static final String SPILL_PATH_CONFIG = "collector.buffer.spill.path";
    public static final String DEFAULT_SPILL_PATH = "/var/lib/rdmamon/spill";
    private static final String SPILL_PATH_DOC = "Directory of the spill log (segments *.spill and the mark "
            + "'delivered'). Every record is written there; those not acknowledged by Kafka are sent first on the next "
            + "start, after a stop or a crash. One collector per directory (it is locked).";

    public static final String SPILL_BYTES_CONFIG = "collector.buffer.spill.bytes";
    public static final long DEFAULT_SPILL_BYTES = 256 * MIB;
    private static final String SPILL_BYTES_DOC = "Most bytes of the spill log on disk (one segment more at most); "
            + "beyond it the oldest segment is deleted and its records not yet sent are dropped and counted "
            + "(rdmamon.collector.dropped.records). 256 MiB holds about 450,000 port records: 8 hours of 16 ports at a "
            + "1 s interval. 0 disables the spill log: memory only, a crash loses what is buffered.";

    public static final String FLUSH_INTERVAL_MS_CONFIG = "collector.buffer.flush.interval.ms";
    public static final long DEFAULT_FLUSH_INTERVAL_MS = 1_000;
    private static final String FLUSH_INTERVAL_MS_DOC = "How often the spill log is written and fsynced, with the mark "
            + "of what Kafka acknowledged. A crash (kill -9, OOM, power loss) loses at most the records of the last "
            + "interval; a shorter one costs a write and an fsync more often.";

    public static final String IN_FLIGHT_BYTES_CONFIG = "collector.publish.inflight.bytes";
    public static final long DEFAULT_IN_FLIGHT_BYTES = 4 * MIB;
    private static final String IN_FLIGHT_BYTES_DOC = "Most bytes of records handed to the Kafka producer and not yet "
            + "acknowledged. Part of the memory bound; must be below it and below kafka.buffer.memory.";

    public static final String CLOSE_TIMEOUT_MS_CONFIG = "collector.publish.close.timeout.ms";
    public static final long DEFAULT_CLOSE_TIMEOUT_MS = 10_000;
    private static final String CLOSE_TIMEOUT_MS_DOC = "On shutdown, how long to keep sending what is buffered; what "
            + "is left after it is written to the spill file.";

    public static final String BOOTSTRAP_SERVERS_CONFIG = KAFKA_PREFIX + ProducerConfig.BOOTSTRAP_SERVERS_CONFIG;

    public static final String ACKS_CONFIG = KAFKA_PREFIX + ProducerConfig.ACKS_CONFIG;
    public static final String DEFAULT_ACKS = "all";
    private static final String ACKS_DOC = "Kafka acks: all, so a record acknowledged is on every in-sync replica.";

    public static final String IDEMPOTENCE_CONFIG = KAFKA_PREFIX + ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG;
    public static final boolean DEFAULT_IDEMPOTENCE = true;
    private static final String IDEMPOTENCE_DOC = "Idempotent producer: the broker discards the duplicates that "
            + "retries would write, so each record is stored once and in order.";

    public static final String COMPRESSION_CONFIG = KAFKA_PREFIX + ProducerConfig.COMPRESSION_TYPE_CONFIG;
    public static final String DEFAULT_COMPRESSION = "gzip";
    private static final String COMPRESSION_DOC = "Compression of record batches: none, gzip, snappy, lz4 or zstd. "
            + "gzip: as small as zstd within 5-8 % (bench publish), and the JDK's own zlib, so no native library is "
            + "unpacked and loaded (zstd: 3 MiB more resident, bench collector --process).";

    public static final String LINGER_MS_CONFIG = KAFKA_PREFIX + ProducerConfig.LINGER_MS_CONFIG;
    public static final int DEFAULT_LINGER_MS = 50;
    private static final String LINGER_MS_DOC = "How long the producer waits to fill a batch: one sampling pass's "
            + "records then travel, and compress, together.";

    public static final String DELIVERY_TIMEOUT_MS_CONFIG = KAFKA_PREFIX + ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG;
    public static final int DEFAULT_DELIVERY_TIMEOUT_MS = Integer.MAX_VALUE;
    private static final String DELIVERY_TIMEOUT_MS_DOC = "How long the producer retries a record: for ever, so that "
            + "it never gives one up during an outage; a lower value risks reordering and duplicates after an outage.";

    public static final String MAX_IN_FLIGHT_CONFIG = KAFKA_PREFIX
            + ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION;
    public static final int DEFAULT_MAX_IN_FLIGHT = 1;
    private static final String MAX_IN_FLIGHT_DOC = "Produce requests in flight per broker connection. 1: with more, "
            + "a request that fails on a partition the broker has just created can be overtaken by the next one, and "
            + "the idempotent producer of Kafka 4.3 then retries it for ever (KAFKA-15591). One request still carries "
            + "a batch for every partition of the broker.";

    public static final String CLIENT_ID_CONFIG = KAFKA_PREFIX + ProducerConfig.CLIENT_ID_CONFIG;
    public static final String DEFAULT_CLIENT_ID = "rdmamon-collector";
    private static final String CLIENT_ID_DOC = "Kafka client id, seen in broker logs, quotas and metrics.";

    public static final String METRIC_REPORTERS_CONFIG = KAFKA_PREFIX + CommonClientConfigs.METRIC_REPORTER_CLASSES_CONFIG;
    public static final String DEFAULT_METRIC_REPORTERS = "";
    private static final String METRIC_REPORTERS_DOC = "Kafka metric reporters of the producer: none, where Kafka's "
            + "default is its JMX reporter, an MBean per producer metric. The collector exposes its publishing on "
            + "/metrics (rdmamon_collector_records_published, _publish_latency, _publish_errors...) and a node "
            + "agent's JVM is not read over JMX; org.apache.kafka.common.metrics.JmxReporter brings the MBeans back.";

    public static final String METRICS_PUSH_CONFIG = KAFKA_PREFIX + ProducerConfig.ENABLE_METRICS_PUSH_CONFIG;
    public static final boolean DEFAULT_METRICS_PUSH = false;
    private static final String METRICS_PUSH_DOC = "Client metrics pushed to the broker (KIP-714, used only where the "
            + "brokers have a client-metrics plugin and subscriptions): off, where Kafka's default is on; the "
            + "telemetry reporter it needs loads some 70 classes (Kafka's shaded protobuf and OpenTelemetry) into "
            + "every collector. true turns it back on.";

    public static final ConfigDef CONFIG = define(new ConfigDef());

    public PublishConfig(Map<?, ?> originals) {
        super(CONFIG, originals, false);
        long memory = getLong(MEMORY_BYTES_CONFIG);
        long inFlight = getLong(IN_FLIGHT_BYTES_CONFIG);
        if (inFlight >= memory) {
            throw new ConfigException(IN_FLIGHT_BYTES_CONFIG, inFlight, "must be below " + MEMORY_BYTES_CONFIG + " ("
                    + memory + ")");
        }
        Object bufferMemory = originals().get(KAFKA_PREFIX + ProducerConfig.BUFFER_MEMORY_CONFIG);
        if (bufferMemory != null && inFlight > (Long) ConfigDef.parseType(KAFKA_PREFIX
                + ProducerConfig.BUFFER_MEMORY_CONFIG, bufferMemory, Type.LONG)) {
            throw new ConfigException(IN_FLIGHT_BYTES_CONFIG, inFlight, "must not exceed kafka.buffer.memory ("
                    + bufferMemory + "): the producer would block");
        }
    }

    /** Adds this part's keys to {@code def} (the collector folds them into its own definition). */
    public static ConfigDef define(ConfigDef def) {
        return def
                .define(MEMORY_BYTES_CONFIG, Type.LONG, DEFAULT_MEMORY_BYTES, Range.atLeast(64 * 1024L),
                        Importance.MEDIUM, MEMORY_BYTES_DOC)
                .define(SPILL_PATH_CONFIG, Type.STRING, DEFAULT_SPILL_PATH, new ConfigDef.NonEmptyString(),
                        Importance.MEDIUM, SPILL_PATH_DOC)
                .define(SPILL_BYTES_CONFIG, Type.LONG, DEFAULT_SPILL_BYTES, Range.atLeast(0L), Importance.MEDIUM,
                        SPILL_BYTES_DOC)
                .define(FLUSH_INTERVAL_MS_CONFIG, Type.LONG, DEFAULT_FLUSH_INTERVAL_MS, Range.between(10L, 60_000L),
                        Importance.MEDIUM, FLUSH_INTERVAL_MS_DOC)
                .define(IN_FLIGHT_BYTES_CONFIG, Type.LONG, DEFAULT_IN_FLIGHT_BYTES, Range.atLeast(1024L),
                        Importance.LOW, IN_FLIGHT_BYTES_DOC)
                .define(CLOSE_TIMEOUT_MS_CONFIG, Type.LONG, DEFAULT_CLOSE_TIMEOUT_MS, Range.atLeast(0L),
                        Importance.LOW, CLOSE_TIMEOUT_MS_DOC)
                .define(ACKS_CONFIG, Type.STRING, DEFAULT_ACKS, ValidString.in("all", "-1", "0", "1"),
                        Importance.LOW, ACKS_DOC)
                .define(IDEMPOTENCE_CONFIG, Type.BOOLEAN, DEFAULT_IDEMPOTENCE, Importance.LOW, IDEMPOTENCE_DOC)
                .define(COMPRESSION_CONFIG, Type.STRING, DEFAULT_COMPRESSION,
                        ValidString.in("none", "gzip", "snappy", "lz4", "zstd"), Importance.LOW, COMPRESSION_DOC)
                .define(LINGER_MS_CONFIG, Type.INT, DEFAULT_LINGER_MS, Range.between(0, 60_000), Importance.LOW,
                        LINGER_MS_DOC)
                .define(DELIVERY_TIMEOUT_MS_CONFIG, Type.INT, DEFAULT_DELIVERY_TIMEOUT_MS, Range.atLeast(1),
                        Importance.LOW, DELIVERY_TIMEOUT_MS_DOC)
                .define(MAX_IN_FLIGHT_CONFIG, Type.INT, DEFAULT_MAX_IN_FLIGHT, Range.between(1, 5), Importance.LOW,
                        MAX_IN_FLIGHT_DOC)
                .define(CLIENT_ID_CONFIG, Type.STRING, DEFAULT_CLIENT_ID, Importance.LOW, CLIENT_ID_DOC)
                .define(METRIC_REPORTERS_CONFIG, Type.LIST, DEFAULT_METRIC_REPORTERS, Importance.LOW,
                        METRIC_REPORTERS_DOC)
                .define(METRICS_PUSH_CONFIG, Type.BOOLEAN, DEFAULT_METRICS_PUSH, Importance.LOW, METRICS_PUSH_DOC);
    }

    public long memoryBytes() {
        return getLong(MEMORY_BYTES_CONFIG);
    }

    public Path spillPath() {
        return Path.of(getString(SPILL_PATH_CONFIG));
    }

    public long spillBytes() {
        return getLong(SPILL_BYTES_CONFIG);
    }

    public long flushIntervalMs() {
        return getLong(FLUSH_INTERVAL_MS_CONFIG);
    }

    public long inFlightBytes() {
        return getLong(IN_FLIGHT_BYTES_CONFIG);
    }

    public long closeTimeoutMs() {
        return getLong(CLOSE_TIMEOUT_MS_CONFIG);
    }

    /**
     * The producer's settings: every {@code kafka.*} key given, over rdmamon's defaults; the serializers are fixed.
     * May hold secrets (SASL, TLS passwords): never log it, use {@link #describeProducer()}.
     */
    public Map<String, Object> producerSettings() {
        Map<String, Object> settings = new HashMap<>();
        CONFIG.names().stream().filter(name -> name.startsWith(KAFKA_PREFIX))
                .forEach(name -> settings.put(name.substring(KAFKA_PREFIX.length()), get(name)));
        settings.putAll(ConfigLoader.withPrefix(originals(), KAFKA_PREFIX));
        if (!settings.containsKey(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG)) {
            throw new ConfigException(BOOTSTRAP_SERVERS_CONFIG, null, "required to publish to Kafka (host:port,...)");
        }
        settings.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        settings.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        // the sample topics' partitioning contract: one node's records in one partition (not overridable)
        settings.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, NodePartitioner.class.getName());
        return settings;
    }

    /** The producer settings safe to log: where it connects and how, never credentials. */
    public String describeProducer() {
        Map<String, Object> settings = producerSettings();
        return "bootstrap.servers=" + settings.get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG)
                + " security.protocol=" + settings.getOrDefault("security.protocol", "PLAINTEXT")
                + " acks=" + settings.get(ProducerConfig.ACKS_CONFIG)
                + " enable.idempotence=" + settings.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG)
                + " compression.type=" + settings.get(ProducerConfig.COMPRESSION_TYPE_CONFIG)
                + " client.id=" + settings.get(ProducerConfig.CLIENT_ID_CONFIG);
    }
}
