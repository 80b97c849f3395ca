package io.rdmamon.jobs.k8s;

import io.rdmamon.config.ConfigLoader;
import io.rdmamon.model.Topics;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Settings of {@code rdmamon jobs watch}. Every key has a default and a doc string; {@code streams/jobs-watch.properties}
 * is the annotated default file. Kafka client settings pass through under {@code kafka.} (see {@link ConfigLoader});
 * the Kubernetes connection is fabric8's usual one (in-cluster service account, else {@code KUBECONFIG} /
 * {@code ~/.kube/config}).
 */
public final class JobsWatchConfig extends AbstractConfig {
    public static final String KAFKA_PREFIX = "kafka.";

    public static final String NAMESPACE_CONFIG = "jobs.watch.namespace";
    public static final String DEFAULT_NAMESPACE = "";
    private static final String NAMESPACE_DOC = "Namespace whose pods are watched. Empty: all namespaces (needs a "
            + "ClusterRole; one namespace needs only a Role there).";

    public static final String LABEL_SELECTOR_CONFIG = "jobs.watch.label.selector";
    public static final String DEFAULT_LABEL_SELECTOR = "";
    private static final String LABEL_SELECTOR_DOC = "Kubernetes label selector the API server applies before the "
            + "watcher sees a pod, e.g. 'training.kubeflow.org/job-name' (Kubeflow pods only) or 'rdma=true'. Empty: "
            + "every pod is read and the watcher keeps those of training jobs. On a big cluster a selector spares the "
            + "API server and the watcher the traffic of every other pod's changes.";

    public static final String JOB_LABEL_CONFIG = "jobs.watch.job.label";
    public static final String DEFAULT_JOB_LABEL = "";
    private static final String JOB_LABEL_DOC = "Label key whose value names a training job, for jobs that are "
            + "neither Kubeflow nor Volcano: pods with rdmamon.io/job=llama-ft form job 'llama-ft' when this is "
            + "rdmamon.io/job. Empty: only Kubeflow and Volcano jobs are found.";

    public static final String RANK_LABEL_CONFIG = "jobs.watch.rank.label";
    public static final String DEFAULT_RANK_LABEL = "";
    private static final String RANK_LABEL_DOC = "Label key holding a pod's rank (an integer) in jobs found through "
            + "jobs.watch.job.label. Empty, or absent on a pod: the number at the end of the pod name (llama-ft-3 is "
            + "rank 3).";

    public static final String RANK_ORDER_CONFIG = "jobs.watch.rank.order";
    public static final String DEFAULT_RANK_ORDER = "master,chief,worker";
    private static final String RANK_ORDER_DOC = "Replica types (Kubeflow replica-type, Volcano task-spec) in rank "
            + "order. Ranks count up through the types in this order, by index within a type: with master,worker a "
            + "PyTorchJob's master-0 is rank 0 and worker-0..worker-2 are ranks 1..3. Types not listed follow in "
            + "alphabetical order.";

    public static final String RANK_SKIP_CONFIG = "jobs.watch.rank.skip";
    public static final String DEFAULT_RANK_SKIP = "launcher,mpimaster";
    private static final String RANK_SKIP_DOC = "Replica types that take no part in the collective and get no rank: an "
            + "MPIJob's launcher only runs mpirun, so its workers are ranks 0..N-1 as MPI numbers them. These pods "
            + "still count for the job's state.";

    public static final String RECONCILE_MS_CONFIG = "jobs.watch.reconcile.ms";
    public static final long DEFAULT_RECONCILE_MS = 60_000;
    private static final String RECONCILE_MS_DOC = "Besides reacting to every pod event, the watcher compares all "
            + "jobs with what it published this often (and after every re-list), so a missed event or a failed send is "
            + "repaired within this time. Unchanged jobs are not published again.";

    public static final String TOPIC_CONFIG = "jobs.topic";
    public static final String DEFAULT_TOPIC = Topics.JOBS;
    private static final String TOPIC_DOC = "Topic of the job records (compacted, key = job uid).";

    public static final String POD_DEVICES_TOPIC_CONFIG = "jobs.pod.devices.topic";
    public static final String DEFAULT_POD_DEVICES_TOPIC = Topics.POD_DEVICES;
    private static final String POD_DEVICES_TOPIC_DOC = "Topic where collectors publish which pod holds which RDMA "
            + "device; the watcher fills each rank's devices from it. Empty: ranks carry no devices.";

    public static final String NODES_TOPIC_CONFIG = "jobs.nodes.topic";
    public static final String DEFAULT_NODES_TOPIC = Topics.NODES;
    private static final String NODES_TOPIC_DOC = "Topic where the watcher publishes which nodes are in the cluster "
            + "(compacted, key = node): Deleted when a Node object is deleted (autoscaler scale-in, a reclaimed spot "
            + "instance), Present when one is added, so the stream app does not report a deleted node's collector as "
            + "silent. Needs get/list/watch on nodes. Empty, or a topic that does not exist at start: not published.";

    public static final String INSTANCE_TYPE_LABEL_CONFIG = "jobs.watch.instance.type.label";
    public static final String DEFAULT_INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type";
    private static final String INSTANCE_TYPE_LABEL_DOC = "Node label whose value each rank carries as instanceType "
            + "(e.g. ecs.ebmgn7ex), for the stream app's expected bandwidth per NIC "
            + "(streams.nic.expected.instance.types). The watcher then also lists and watches nodes (the ClusterRole "
            + "needs get/list/watch on nodes). Empty: ranks carry no instance type (nodes are still watched for "
            + "jobs.nodes.topic).";

    public static final String STARTUP_TIMEOUT_MS_CONFIG = "jobs.startup.timeout.ms";
    public static final long DEFAULT_STARTUP_TIMEOUT_MS = 120_000;
    private static final String STARTUP_TIMEOUT_MS_DOC = "At start the watcher reads back the job records it "
            + "published before (so it neither repeats them nor leaves vanished jobs behind) and exits when that "
            + "takes longer; it waits as long for the pod devices and the node list, then goes on without them (they "
            + "follow as read).";

    public static final String CLIENT_ID_CONFIG = KAFKA_PREFIX + ProducerConfig.CLIENT_ID_CONFIG;
    public static final String DEFAULT_CLIENT_ID = "rdmamon-jobs-watch";
    private static final String CLIENT_ID_DOC = "Kafka client id, seen in broker logs, quotas and metrics.";

    public static final String METRICS_PORT_CONFIG = "metrics.port";
    public static final int DEFAULT_METRICS_PORT = 9468;
    private static final String METRICS_PORT_DOC = "Port of the Prometheus endpoint /metrics; -1 disables it.";

    public static final String METRICS_BIND_CONFIG = "metrics.bind.address";
    public static final String DEFAULT_METRICS_BIND = "0.0.0.0";
    private static final String METRICS_BIND_DOC = "Address the metrics endpoint binds to.";

    public static final ConfigDef CONFIG = PlatformRules.define(new ConfigDef())
            .define(NAMESPACE_CONFIG, Type.STRING, DEFAULT_NAMESPACE, Importance.HIGH, NAMESPACE_DOC)
            .define(LABEL_SELECTOR_CONFIG, Type.STRING, DEFAULT_LABEL_SELECTOR, Importance.MEDIUM, LABEL_SELECTOR_DOC)
            .define(JOB_LABEL_CONFIG, Type.STRING, DEFAULT_JOB_LABEL, Importance.MEDIUM, JOB_LABEL_DOC)
            .define(RANK_LABEL_CONFIG, Type.STRING, DEFAULT_RANK_LABEL, Importance.LOW, RANK_LABEL_DOC)
            .define(RANK_ORDER_CONFIG, Type.LIST, DEFAULT_RANK_ORDER, Importance.LOW, RANK_ORDER_DOC)
            .define(RANK_SKIP_CONFIG, Type.LIST, DEFAULT_RANK_SKIP, Importance.LOW, RANK_SKIP_DOC)
            .define(RECONCILE_MS_CONFIG, Type.LONG, DEFAULT_RECONCILE_MS, Range.between(1_000L, 86_400_000L),
                    Importance.LOW, RECONCILE_MS_DOC)
            .define(TOPIC_CONFIG, Type.STRING, DEFAULT_TOPIC, new ConfigDef.NonEmptyString(), Importance.LOW, TOPIC_DOC)
            .define(POD_DEVICES_TOPIC_CONFIG, Type.STRING, DEFAULT_POD_DEVICES_TOPIC, Importance.LOW,
                    POD_DEVICES_TOPIC_DOC)
            .define(NODES_TOPIC_CONFIG, Type.STRING, DEFAULT_NODES_TOPIC, Importance.LOW, NODES_TOPIC_DOC)
            .define(INSTANCE_TYPE_LABEL_CONFIG, Type.STRING, DEFAULT_INSTANCE_TYPE_LABEL, Importance.LOW,
                    INSTANCE_TYPE_LABEL_DOC)
            .define(STARTUP_TIMEOUT_MS_CONFIG, Type.LONG, DEFAULT_STARTUP_TIMEOUT_MS,
                    Range.between(1_000L, 3_600_000L), Importance.LOW, STARTUP_TIMEOUT_MS_DOC)
            .define(CLIENT_ID_CONFIG, Type.STRING, DEFAULT_CLIENT_ID, Importance.LOW, CLIENT_ID_DOC)
            .define(METRICS_PORT_CONFIG, Type.INT, DEFAULT_METRICS_PORT, Range.between(-1, 65_535),
                    Importance.MEDIUM, METRICS_PORT_DOC)
            .define(METRICS_BIND_CONFIG, Type.STRING, DEFAULT_METRICS_BIND, Importance.LOW, METRICS_BIND_DOC);

    public JobsWatchConfig(Map<?, ?> originals) {
        super(CONFIG, originals, false);
        if (!rankOrder().stream().filter(rankSkip()::contains).toList().isEmpty()) {
            throw new ConfigException(RANK_SKIP_CONFIG, rankSkip(), "names a type also listed in " + RANK_ORDER_CONFIG
                    + " (" + rankOrder() + ")");
        }
    }

    /** Loads defaults &lt; file &lt; {@code RDMAMON_*} environment &lt; flags. */
    public static JobsWatchConfig load(Path file, Map<String, String> env, Map<String, ?> flags) {
        return new JobsWatchConfig(ConfigLoader.load(CONFIG, file, env, flags, KAFKA_PREFIX));
    }

    /** Null: all namespaces. */
    public String namespace() {
        return blankToNull(NAMESPACE_CONFIG);
    }

    /** Null: no server-side selector. */
    public String labelSelector() {
        return blankToNull(LABEL_SELECTOR_CONFIG);
    }

    /** Null: no custom jobs. */
    public String jobLabel() {
        return blankToNull(JOB_LABEL_CONFIG);
    }

    /** Null: ranks of custom jobs from pod names. */
    public String rankLabel() {
        return blankToNull(RANK_LABEL_CONFIG);
    }

    public List<String> rankOrder() {
        return getList(RANK_ORDER_CONFIG);
    }

    public List<String> rankSkip() {
        return getList(RANK_SKIP_CONFIG);
    }

    public Duration reconcileInterval() {
        return Duration.ofMillis(getLong(RECONCILE_MS_CONFIG));
    }

    public String topic() {
        return getString(TOPIC_CONFIG);
    }

    /** Null: no device join. */
    public String podDevicesTopic() {
        return blankToNull(POD_DEVICES_TOPIC_CONFIG);
    }

    /** Null: node departures not published. */
    public String nodesTopic() {
        return blankToNull(NODES_TOPIC_CONFIG);
    }

    /** Null: ranks carry no instance type. */
    public String instanceTypeLabel() {
        return blankToNull(INSTANCE_TYPE_LABEL_CONFIG);
    }

    /** In-pod monitoring and intended transports (ACS). */
    PlatformRules platformRules() {
        return PlatformRules.of(this);
    }

    public Duration startupTimeout() {
        return Duration.ofMillis(getLong(STARTUP_TIMEOUT_MS_CONFIG));
    }

    /**
     * The producer: every {@code kafka.*} setting given, with acks=all and idempotence always on (the broker then
     * drops the duplicates a retry would write, so each change is stored once and in order). May hold secrets.
     */
    public Map<String, Object> producerSettings() {
        Map<String, Object> settings = kafkaSettings();
        settings.put(ProducerConfig.ACKS_CONFIG, "all");
        settings.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        settings.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        settings.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return settings;
    }

    /**
     * A consumer that reads whole topics by assignment: no group, nothing committed, no topic created. {@code purpose}
     * makes its client id distinct.
     */
    public Map<String, Object> readerSettings(String purpose) {
        Map<String, Object> settings = kafkaSettings();
        settings.put(ConsumerConfig.CLIENT_ID_CONFIG, settings.get(ProducerConfig.CLIENT_ID_CONFIG) + "-" + purpose);
        for (String producerOnly : List.of(ProducerConfig.ACKS_CONFIG, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                ProducerConfig.LINGER_MS_CONFIG, ProducerConfig.COMPRESSION_TYPE_CONFIG, "group.id")) {
            settings.remove(producerOnly);
        }
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        settings.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        settings.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        settings.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return settings;
    }

    private String blankToNull(String key) {
        String value = getString(key).trim();
        return value.isEmpty() ? null : value;
    }

    private Map<String, Object> kafkaSettings() {
        Map<String, Object> settings = new HashMap<>(ConfigLoader.withPrefix(originals(), KAFKA_PREFIX));
        settings.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, getString(CLIENT_ID_CONFIG));
        if (!settings.containsKey(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG)) {
            throw new ConfigException(KAFKA_PREFIX + ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, null,
                    "required (host:port,...)");
        }
        return settings;
    }
}
