package io.rdmamon.streams;

import io.rdmamon.config.ConfigLoader;
import io.rdmamon.config.StoreType;
import io.rdmamon.detect.DetectorConfig;
import io.rdmamon.jobs.NicExpectations;
import io.rdmamon.model.ContractLimits;
import io.rdmamon.model.Topics;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Settings of {@code rdmamon streams}: where Kafka is, the topic names, windows, the job-metadata join, and (through
 * {@link DetectorConfig}) every detector threshold. Keys start with {@code streams.}; {@code kafka.*} keys pass
 * through to Kafka Streams and its clients unchanged (e.g. {@code kafka.security.protocol}). Loaded by
 * {@link ConfigLoader}: defaults &lt; properties file &lt; {@code RDMAMON_STREAMS_*} environment &lt; flags.
 */
public final class StreamsAppConfig extends AbstractConfig {
    public static final String KAFKA_PREFIX = "kafka.";

    public static final String BOOTSTRAP_SERVERS_CONFIG = "streams.bootstrap.servers";
    public static final String DEFAULT_BOOTSTRAP_SERVERS = "localhost:9092";
    private static final String BOOTSTRAP_SERVERS_DOC = "Kafka brokers, host:port[,host:port...].";

    public static final String APPLICATION_ID_CONFIG = "streams.application.id";
    public static final String DEFAULT_APPLICATION_ID = "rdmamon-streams";
    private static final String APPLICATION_ID_DOC = "Kafka Streams application.id: the consumer group, the prefix of "
            + "internal topics and of the state directory. Instances with the same id share the work.";

    public static final String STATE_DIR_CONFIG = "streams.state.dir";
    public static final String DEFAULT_STATE_DIR = "/var/tmp/rdmamon-streams";
    private static final String STATE_DIR_DOC = "Local state (RocksDB) directory; one per instance. Losing it costs "
            + "only a restore from the changelog topics. Not under /tmp, which the OS may clean while the app runs.";

    public static final String STATE_STORE_TYPE_CONFIG = "streams.state.store.type";
    public static final String DEFAULT_STATE_STORE_TYPE = "in_memory";
    private static final String STATE_STORE_TYPE_DOC = "What holds the app's own state stores below their objects on the "
            + "heap: in_memory (restored from the changelogs at every start) or rocksdb (on disk in streams.state.dir: "
            + "a clean restart skips the restore, at the cost of about 100 RocksDB instances to open and flush). The "
            + "versioned job-assignment table is always RocksDB.";

    public static final String THREADS_CONFIG = "streams.threads";
    public static final int DEFAULT_THREADS = 1;
    private static final String THREADS_DOC = "Stream threads in this instance (parallelism is bounded by partitions).";

    public static final String STANDBY_REPLICAS_CONFIG = "streams.standby.replicas";
    public static final int DEFAULT_STANDBY_REPLICAS = 1;
    private static final String STANDBY_REPLICAS_DOC = "Warm copies of each task's state kept by other instances "
            + "(Kafka Streams' num.standby.replicas). When an instance dies, an instance with a copy takes its tasks "
            + "over without restoring them from the changelogs first. Costs each copy's share of changelog reads and "
            + "memory; with one instance there is nowhere to keep one and it costs nothing.";

    public static final String SESSION_TIMEOUT_CONFIG = "streams.session.timeout.ms";
    public static final long DEFAULT_SESSION_TIMEOUT = 6_000;
    private static final String SESSION_TIMEOUT_DOC = "How long the group waits for a silent instance (killed, its "
            + "node lost) before it hands that instance's tasks to the others: the most of the blind spot after a "
            + "crash (docs/performance.md). Heartbeats go every quarter of it from a thread of their own, so a busy or "
            + "garbage-collecting stream thread does not count as silent. Kafka's default is 45000; the brokers "
            + "accept 6000 to 1800000 unless group.min.session.timeout.ms says otherwise.";

    public static final String REPLICATION_FACTOR_CONFIG = "streams.replication.factor";
    public static final int DEFAULT_REPLICATION_FACTOR = -1;
    private static final String REPLICATION_FACTOR_DOC = "Replication factor of the topics this app creates (its "
            + "own and its internal ones); -1 uses the broker's default.replication.factor.";

    public static final String TOPICS_CREATE_CONFIG = "streams.topics.create";
    public static final boolean DEFAULT_TOPICS_CREATE = true;
    private static final String TOPICS_CREATE_DOC = "Create missing input and output topics at start (rdma.jobs "
            + "compacted). Turn off where topics are managed by other means.";

    public static final String TOPICS_PARTITIONS_CONFIG = "streams.topics.partitions";
    public static final int DEFAULT_TOPICS_PARTITIONS = 6;
    private static final String TOPICS_PARTITIONS_DOC = "Partitions of topics created at start; bounds the number of "
            + "useful stream threads across all instances.";

    public static final String PORT_SAMPLES_TOPIC_CONFIG = "streams.topic.port.samples";
    public static final String HOST_SAMPLES_TOPIC_CONFIG = "streams.topic.host.samples";
    public static final String GPU_SAMPLES_TOPIC_CONFIG = "streams.topic.gpu.samples";
    public static final String JOBS_TOPIC_CONFIG = "streams.topic.jobs";
    public static final String JOB_BANDWIDTH_TOPIC_CONFIG = "streams.topic.job.bandwidth";
    public static final String LINK_HEALTH_TOPIC_CONFIG = "streams.topic.link.health";
    public static final String ALERTS_TOPIC_CONFIG = "streams.topic.alerts";
    public static final String DEAD_LETTER_TOPIC_CONFIG = "streams.topic.dead.letter";
    public static final String NODES_TOPIC_CONFIG = "streams.topic.nodes";

    public static final String WINDOW_SIZE_CONFIG = "streams.window.size.ms";
    public static final long DEFAULT_WINDOW_SIZE = 10_000;
    private static final String WINDOW_SIZE_DOC = "Event-time window of per-job bandwidth (and of straggler checks).";

    public static final String WINDOW_GRACE_CONFIG = "streams.window.grace.ms";
    public static final long DEFAULT_WINDOW_GRACE = 0;
    private static final String WINDOW_GRACE_DOC = "Extra wait before a job-bandwidth window is emitted, after every "
            + "port of the job that is still reporting has sent a sample past the window's end. Each port's samples "
            + "arrive in order, so 0 loses nothing; samples for an emitted window are counted as "
            + "rdmamon_streams_late_samples_total and still feed link health.";

    public static final String WINDOW_PORT_TIMEOUT_CONFIG = "streams.window.port.timeout.ms";
    public static final long DEFAULT_WINDOW_PORT_TIMEOUT = 30_000;
    private static final String WINDOW_PORT_TIMEOUT_DOC = "A port of a job from which nothing arrived for this long "
            + "(wall clock: a silent collector, a device the job let go) is no longer waited for, so the job's windows "
            + "go out without it (fewer ranks reporting). A rank of the job not heard from at all is waited for as "
            + "long after the job's first sample.";

    public static final String COMMIT_INTERVAL_CONFIG = "streams.commit.interval.ms";
    public static final long DEFAULT_COMMIT_INTERVAL = 1000;
    private static final String COMMIT_INTERVAL_DOC = "How often the app commits its exactly-once transaction. "
            + "Outputs (alerts, link health, job bandwidth) become visible to read_committed consumers at commits, "
            + "and the job side sees a node's samples one commit after the node side: the sample-to-alert latency is "
            + "up to about twice this. Each commit writes the changed state (once per key) to the changelogs and one "
            + "transaction marker per partition written, so shorter intervals cost more Kafka writes and CPU: 1000 against "
            + "500 took the live app from 0.34-0.36 to 0.31-0.32 cores per 1,000 nodes, and the alert from 1.0 to "
            + "1.3-1.7 s after its sample (docs/performance.md).";

    public static final String LINK_HEALTH_INTERVAL_CONFIG = "streams.link.health.interval.ms";
    public static final long DEFAULT_LINK_HEALTH_INTERVAL = 10_000;
    private static final String LINK_HEALTH_INTERVAL_DOC = "rdma.link-health carries each port's first sample of "
            + "every such interval of event time, and at once every sample whose verdict changed (state, physical "
            + "state, holding job, sharing) or that counted errors other than congestion. The per-second series of "
            + "every port stays on rdma.port-samples.";

    public static final String HISTORY_RETENTION_CONFIG = "streams.jobs.history.retention.ms";
    public static final long DEFAULT_HISTORY_RETENTION = Duration.ofDays(1).toMillis();
    private static final String HISTORY_RETENTION_DOC = "How far back the versioned job-assignment table answers "
            + "'which job held this device at time t'; samples older than this (relative to the newest job update) "
            + "are treated as unassigned.";

    public static final String LATE_JOB_GRACE_CONFIG = "streams.jobs.late.grace.ms";
    public static final long DEFAULT_LATE_JOB_GRACE = 10_000;
    private static final String LATE_JOB_GRACE_DOC = "How long (wall clock) samples judged without a job are kept in "
            + "memory for a job's hold still on its way (it crosses a repartition topic and a commit, the samples do "
            + "not): a hold that comes within it gives them to the job after all. 0 keeps none.";

    public static final String PASS_SPREAD_CONFIG = "streams.jobs.pass.spread.ms";
    public static final long DEFAULT_PASS_SPREAD = -1;
    private static final String PASS_SPREAD_DOC = "How far apart a node's samples may be stamped and still be one "
            + "sampling pass, which the job side gets as one record: a collector may stamp each NIC when it reads it. "
            + "-1: less than half the samples' intervalMs (a port coming again begins a new pass); 0: only samples of "
            + "the same ts (before issue 42, which makes a record per sample of such a collector; samples re-judged for a "
            + "late hold are grouped by interval whatever this says).";

    public static final String PUNCTUATE_INTERVAL_CONFIG = "streams.punctuate.interval.ms";
    public static final long DEFAULT_PUNCTUATE_INTERVAL = 1_000;
    private static final String PUNCTUATE_INTERVAL_DOC = "Wall-clock period of the collector-silence check "
            + "and of the job-bandwidth window completeness check.";

    public static final String CLOCK_SKEW_MAX_CONFIG = "streams.clock.skew.max.ms";
    public static final long DEFAULT_CLOCK_SKEW_MAX = 2_000;
    private static final String CLOCK_SKEW_MAX_DOC = "A node whose clock (its samples' ts) is off by more than this "
            + "from the median of the other nodes' is logged, shown on rdmamon_streams_clock_offset_seconds{node}, and "
            + "judged in corrected time (ts minus its offset) until back within half of it; one off by more than "
            + "streams.contract.max.future.ms keeps its own times. See docs/streams.md, 'A node with a wrong clock'.";

    public static final String METRICS_PORT_CONFIG = "streams.metrics.port";
    public static final int DEFAULT_METRICS_PORT = 9402;
    private static final String METRICS_PORT_DOC = "Port of the Prometheus /metrics endpoint; -1 disables it.";

    public static final String METRICS_BIND_CONFIG = "streams.metrics.bind.address";
    public static final String DEFAULT_METRICS_BIND = "0.0.0.0";
    private static final String METRICS_BIND_DOC = "Address the /metrics endpoint binds to.";

    public static final String NIC_EXPECTED_INSTANCE_TYPES_CONFIG = "streams.nic.expected.instance.types";
    public static final String DEFAULT_NIC_EXPECTED_INSTANCE_TYPES = "";
    private static final String NIC_EXPECTED_INSTANCE_TYPES_DOC = "What one NIC (RDMA port) is expected to carry in "
            + "one direction, per Kubernetes instance type (the node label node.kubernetes.io/instance-type that jobs "
            + "watch puts on each rank), as type=bytesPerSec entries: e.g. ecs.ebmgn7ex=14.4e9 when nccl-tests "
            + "all_reduce_perf measured a bus bandwidth of 14.4 GB/s on that instance type. rdma.job-bandwidth then "
            + "carries it as expectedNicBytesPerSec beside the job's achieved nicBytesPerSec, and the job dashboard "
            + "and the capacity report show the job's peak against it. ACS pods monitored in the pod carry their GPU "
            + "model instead (jobs.watch.model.label): e.g. GU8TF=...,P16EN=... (on P16EN the NIC is the socket "
            + "interface NCCL uses). Empty: no figure by instance type.";

    public static final String NIC_EXPECTED_DEVICE_TYPES_CONFIG = "streams.nic.expected.device.types";
    public static final String DEFAULT_NIC_EXPECTED_DEVICE_TYPES = "";
    private static final String NIC_EXPECTED_DEVICE_TYPES_DOC = "The same per device type, the device name without "
            + "its index (mlx5_1 -> mlx5, erdma_0 -> erdma), for ranks whose instance type is unknown or not listed "
            + "in " + NIC_EXPECTED_INSTANCE_TYPES_CONFIG + ": e.g. mlx5=24e9,erdma=12e9. Empty: none.";

    /** Prefix of the {@link ContractLimits} keys, e.g. {@code streams.contract.max.future.ms}. */
    public static final String CONTRACT_PREFIX = "streams.";

    public static final ConfigDef CONFIG_DEF = ContractLimits.define(DetectorConfig.define(new ConfigDef()
            .define(BOOTSTRAP_SERVERS_CONFIG, Type.STRING, DEFAULT_BOOTSTRAP_SERVERS, new ConfigDef.NonEmptyString(),
                    Importance.HIGH, BOOTSTRAP_SERVERS_DOC)
            .define(APPLICATION_ID_CONFIG, Type.STRING, DEFAULT_APPLICATION_ID, new ConfigDef.NonEmptyString(),
                    Importance.HIGH, APPLICATION_ID_DOC)
            .define(STATE_DIR_CONFIG, Type.STRING, DEFAULT_STATE_DIR, new ConfigDef.NonEmptyString(),
                    Importance.MEDIUM, STATE_DIR_DOC)
            .define(STATE_STORE_TYPE_CONFIG, Type.STRING, DEFAULT_STATE_STORE_TYPE,
                    ConfigDef.CaseInsensitiveValidString.in("rocksdb", "in_memory"), Importance.LOW,
                    STATE_STORE_TYPE_DOC)
            .define(THREADS_CONFIG, Type.INT, DEFAULT_THREADS, Range.between(1, 64), Importance.MEDIUM, THREADS_DOC)
            .define(STANDBY_REPLICAS_CONFIG, Type.INT, DEFAULT_STANDBY_REPLICAS, Range.between(0, 8),
                    Importance.MEDIUM, STANDBY_REPLICAS_DOC)
            .define(SESSION_TIMEOUT_CONFIG, Type.LONG, DEFAULT_SESSION_TIMEOUT, Range.between(1_000, 1_800_000),
                    Importance.MEDIUM, SESSION_TIMEOUT_DOC)
            .define(REPLICATION_FACTOR_CONFIG, Type.INT, DEFAULT_REPLICATION_FACTOR, Range.between(-1, 32),
                    Importance.MEDIUM, REPLICATION_FACTOR_DOC)
            .define(TOPICS_CREATE_CONFIG, Type.BOOLEAN, DEFAULT_TOPICS_CREATE, Importance.MEDIUM, TOPICS_CREATE_DOC)
            .define(TOPICS_PARTITIONS_CONFIG, Type.INT, DEFAULT_TOPICS_PARTITIONS, Range.between(1, 10_000),
                    Importance.MEDIUM, TOPICS_PARTITIONS_DOC)
            .define(PORT_SAMPLES_TOPIC_CONFIG, Type.STRING, Topics.PORT_SAMPLES, new ConfigDef.NonEmptyString(),
                    Importance.LOW, "Input: port samples (key node/device/port).")
            .define(HOST_SAMPLES_TOPIC_CONFIG, Type.STRING, Topics.HOST_SAMPLES, new ConfigDef.NonEmptyString(),
                    Importance.LOW, "Input: host interface samples (key node/iface).")
            .define(GPU_SAMPLES_TOPIC_CONFIG, Type.STRING, Topics.GPU_SAMPLES, new ConfigDef.NonEmptyString(),
                    Importance.LOW, "Input: GPU samples (key node/gpu index).")
            .define(JOBS_TOPIC_CONFIG, Type.STRING, Topics.JOBS, new ConfigDef.NonEmptyString(), Importance.LOW,
                    "Input: job metadata, compacted (key job uid).")
            .define(JOB_BANDWIDTH_TOPIC_CONFIG, Type.STRING, Topics.JOB_BANDWIDTH, new ConfigDef.NonEmptyString(),
                    Importance.LOW, "Output: per-job bandwidth per window (key job uid).")
            .define(LINK_HEALTH_TOPIC_CONFIG, Type.STRING, Topics.LINK_HEALTH, new ConfigDef.NonEmptyString(),
                    Importance.LOW, "Output: per-port link health per sample (key node/device/port).")
            .define(ALERTS_TOPIC_CONFIG, Type.STRING, Topics.ALERTS, new ConfigDef.NonEmptyString(), Importance.LOW,
                    "Output: alerts, firing and resolved (key alert id).")
            .define(DEAD_LETTER_TOPIC_CONFIG, Type.STRING, Topics.DEAD_LETTER, new ConfigDef.NonEmptyString(),
                    Importance.LOW, "Output: input records that could not be used, with the reason.")
            .define(NODES_TOPIC_CONFIG, Type.STRING, Topics.NODES, Importance.LOW, "Input: which nodes are in the "
                    + "cluster, compacted (key node; written by jobs watch): the collector of a node whose Node object "
                    + "was deleted is not reported silent. Read whole by every instance (a global table). Empty: not "
                    + "read, such a node is reported silent until streams.collector.forget.ms.")
            .define(WINDOW_SIZE_CONFIG, Type.LONG, DEFAULT_WINDOW_SIZE, Range.between(1_000, 3_600_000),
                    Importance.MEDIUM, WINDOW_SIZE_DOC)
            .define(WINDOW_GRACE_CONFIG, Type.LONG, DEFAULT_WINDOW_GRACE, Range.between(0, 3_600_000),
                    Importance.MEDIUM, WINDOW_GRACE_DOC)
            .define(WINDOW_PORT_TIMEOUT_CONFIG, Type.LONG, DEFAULT_WINDOW_PORT_TIMEOUT, Range.between(1_000, 3_600_000),
                    Importance.LOW, WINDOW_PORT_TIMEOUT_DOC)
            .define(COMMIT_INTERVAL_CONFIG, Type.LONG, DEFAULT_COMMIT_INTERVAL, Range.between(10, 60_000),
                    Importance.MEDIUM, COMMIT_INTERVAL_DOC)
            .define(LINK_HEALTH_INTERVAL_CONFIG, Type.LONG, DEFAULT_LINK_HEALTH_INTERVAL, Range.between(1_000,
                    3_600_000), Importance.MEDIUM, LINK_HEALTH_INTERVAL_DOC)
            .define(HISTORY_RETENTION_CONFIG, Type.LONG, DEFAULT_HISTORY_RETENTION,
                    Range.between(60_000, Duration.ofDays(365).toMillis()), Importance.LOW, HISTORY_RETENTION_DOC)
            .define(LATE_JOB_GRACE_CONFIG, Type.LONG, DEFAULT_LATE_JOB_GRACE, Range.between(0, 600_000),
                    Importance.LOW, LATE_JOB_GRACE_DOC)
            .define(PASS_SPREAD_CONFIG, Type.LONG, DEFAULT_PASS_SPREAD, Range.between(-1, 60_000), Importance.LOW,
                    PASS_SPREAD_DOC)
            .define(PUNCTUATE_INTERVAL_CONFIG, Type.LONG, DEFAULT_PUNCTUATE_INTERVAL, Range.between(100, 60_000),
                    Importance.LOW, PUNCTUATE_INTERVAL_DOC)
            .define(CLOCK_SKEW_MAX_CONFIG, Type.LONG, DEFAULT_CLOCK_SKEW_MAX, Range.between(500, 300_000),
                    Importance.LOW, CLOCK_SKEW_MAX_DOC)
            .define(METRICS_PORT_CONFIG, Type.INT, DEFAULT_METRICS_PORT, Range.between(-1, 65_535), Importance.LOW,
                    METRICS_PORT_DOC)
            .define(METRICS_BIND_CONFIG, Type.STRING, DEFAULT_METRICS_BIND, Importance.LOW, METRICS_BIND_DOC)
            .define(NIC_EXPECTED_INSTANCE_TYPES_CONFIG, Type.LIST, DEFAULT_NIC_EXPECTED_INSTANCE_TYPES,
                    StreamsAppConfig::validateNicExpectations, Importance.MEDIUM, NIC_EXPECTED_INSTANCE_TYPES_DOC)
            .define(NIC_EXPECTED_DEVICE_TYPES_CONFIG, Type.LIST, DEFAULT_NIC_EXPECTED_DEVICE_TYPES,
                    StreamsAppConfig::validateNicExpectations, Importance.MEDIUM, NIC_EXPECTED_DEVICE_TYPES_DOC)),
            CONTRACT_PREFIX);

    private final DetectorConfig detectors;

    public StreamsAppConfig(Map<String, ?> originals) {
        super(CONFIG_DEF, originals, false);
        this.detectors = new DetectorConfig(this);
    }

    public DetectorConfig detectors() {
        return detectors;
    }

    public String bootstrapServers() {
        return getString(BOOTSTRAP_SERVERS_CONFIG);
    }

    public String applicationId() {
        return getString(APPLICATION_ID_CONFIG);
    }

    public String stateDir() {
        return getString(STATE_DIR_CONFIG);
    }

    public StoreType storeType() {
        return StoreType.valueOf(getString(STATE_STORE_TYPE_CONFIG).toUpperCase(java.util.Locale.ROOT));
    }

    public TopicNames topics() {
        return new TopicNames(getString(PORT_SAMPLES_TOPIC_CONFIG), getString(HOST_SAMPLES_TOPIC_CONFIG),
                getString(GPU_SAMPLES_TOPIC_CONFIG), getString(JOBS_TOPIC_CONFIG), getString(JOB_BANDWIDTH_TOPIC_CONFIG),
                getString(LINK_HEALTH_TOPIC_CONFIG), getString(ALERTS_TOPIC_CONFIG),
                getString(DEAD_LETTER_TOPIC_CONFIG), blankToNull(getString(NODES_TOPIC_CONFIG)));
    }

    /** The bounds input records are checked against before anything else sees them. */
    public ContractLimits contractLimits() {
        return ContractLimits.from(this, CONTRACT_PREFIX);
    }

    public Duration windowSize() {
        return Duration.ofMillis(getLong(WINDOW_SIZE_CONFIG));
    }

    public Duration windowGrace() {
        return Duration.ofMillis(getLong(WINDOW_GRACE_CONFIG));
    }

    public Duration windowPortTimeout() {
        return Duration.ofMillis(getLong(WINDOW_PORT_TIMEOUT_CONFIG));
    }

    public Duration commitInterval() {
        return Duration.ofMillis(getLong(COMMIT_INTERVAL_CONFIG));
    }

    public Duration sessionTimeout() {
        return Duration.ofMillis(getLong(SESSION_TIMEOUT_CONFIG));
    }

    public Duration linkHealthInterval() {
        return Duration.ofMillis(getLong(LINK_HEALTH_INTERVAL_CONFIG));
    }

    public Duration historyRetention() {
        return Duration.ofMillis(getLong(HISTORY_RETENTION_CONFIG));
    }

    public Duration lateJobGrace() {
        return Duration.ofMillis(getLong(LATE_JOB_GRACE_CONFIG));
    }

    /** {@code streams.jobs.pass.spread.ms}: -1 for half the samples' interval. */
    public long passSpreadMs() {
        return getLong(PASS_SPREAD_CONFIG);
    }

    public Duration punctuateInterval() {
        return Duration.ofMillis(getLong(PUNCTUATE_INTERVAL_CONFIG));
    }

    public Duration clockSkewMax() {
        return Duration.ofMillis(getLong(CLOCK_SKEW_MAX_CONFIG));
    }

    /** The operator's expected bandwidth per NIC, by instance type and by device type. */
    public NicExpectations nicExpectations() {
        return new NicExpectations(NicExpectations.parse(getList(NIC_EXPECTED_INSTANCE_TYPES_CONFIG)),
                NicExpectations.parse(getList(NIC_EXPECTED_DEVICE_TYPES_CONFIG)));
    }

    private static void validateNicExpectations(String name, Object value) {
        try {
            @SuppressWarnings("unchecked")
            List<String> entries = (List<String>) value;
            NicExpectations.parse(entries);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(name, value, e.getMessage());
        }
    }

    /** The {@code kafka.*} settings with the prefix removed, for Kafka Streams and the admin client. */
    public Map<String, Object> kafkaOverrides() {
        return ConfigLoader.withPrefix(originals(), KAFKA_PREFIX);
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.trim();
    }

    /**
     * The names of the topics, overridable so tests and replays can run side by side. {@code nodes} null: the nodes
     * topic is not read.
     */
    public record TopicNames(String portSamples, String hostSamples, String gpuSamples, String jobs, String jobBandwidth,
                             String linkHealth, String alerts, String deadLetter, String nodes) {
    }
}
