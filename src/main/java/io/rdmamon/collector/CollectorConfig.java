package io.rdmamon.collector;

import io.rdmamon.collector.host.DefaultRoute;
import io.rdmamon.collector.eadm.EadmConfig;
import io.rdmamon.collector.gpu.GpuConfig;
import io.rdmamon.collector.podresources.PodResourcesConfig;
import io.rdmamon.collector.publish.PublishConfig;
import io.rdmamon.collector.sysfs.SysfsPortSource;
import io.rdmamon.config.ConfigLoader;
import io.rdmamon.config.RegexValidator;
import io.rdmamon.model.PodIdentity;
import io.rdmamon.model.Topics;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The node agent's settings. Every key has a default and a doc string; {@code collector/collector.properties} is the
 * annotated default file. Kafka client settings pass through under {@code kafka.} (see {@link ConfigLoader}).
 */
public final class CollectorConfig extends AbstractConfig {
    /** The producer's prefix: the pass-through keys must be the ones {@link PublishConfig} hands to the producer. */
    public static final String KAFKA_PREFIX = PublishConfig.KAFKA_PREFIX;

    public static final String NODE_CONFIG = "collector.node";
    public static final String DEFAULT_NODE = "";
    private static final String NODE_DOC = "Node name put in every record. Empty: the NODE_NAME environment variable "
            + "(Kubernetes downward API), else the host name.";

    public static final String MODE_CONFIG = "collector.mode";
    public static final String MODE_NODE = "node";
    public static final String MODE_POD = "pod";
    private static final String MODE_DOC = "node: the collector runs once per node (DaemonSet) with the host's /sys and "
            + "the kubelet's pod-resources socket. pod: it runs inside one pod (a sidecar, or a second process in the "
            + "training container), as on Alibaba Cloud ACS, whose GPU pods have no node of their own: it reads the "
            + "pod's own sysfs, names its records after the pod (<POD_NAMESPACE>.<POD_NAME>, from the downward API; "
            + "NODE_NAME, the virtual node, is only logged), attributes every RDMA device it sees to its pod without "
            + "pod-resources, and samples eth0,hpn0 unless collector.host.interfaces is set.";
    /** The interfaces a pod-mode collector samples by default: ACS's pod network and its RDMA NIC's netdev. */
    public static final List<String> POD_MODE_INTERFACES = List.of("eth0", "hpn0");

    public static final String INTERVAL_MS_CONFIG = "collector.interval.ms";
    public static final long DEFAULT_INTERVAL_MS = 1_000;
    public static final long MIN_INTERVAL_MS = 100;
    private static final String INTERVAL_MS_DOC = "Sampling interval in milliseconds, at least 100. At 1000 a 100 Gb/s "
            + "port that moves 12.5 GB in a second shows as 12.5e9 bytes/s in that second's record.";

    public static final String SYSFS_ROOT_CONFIG = "collector.sysfs.root";
    public static final String DEFAULT_SYSFS_ROOT = "/sys";
    private static final String SYSFS_ROOT_DOC = "Root of sysfs: devices are read from <root>/class/infiniband and host "
            + "interfaces from <root>/class/net. In a container, mount the host's whole /sys read-only.";

    public static final String SYSFS_KEEP_OPEN_CONFIG = "collector.sysfs.keep.open";
    public static final String KEEP_OPEN_AUTO = "auto";
    public static final String KEEP_OPEN_ALWAYS = "always";
    public static final String KEEP_OPEN_NEVER = "never";
    private static final String SYSFS_KEEP_OPEN_DOC = "Keep attribute files open between passes and re-read them at "
            + "offset 0, one system call per counter instead of four. auto: only when the root is a sysfs mount, which "
            + "regenerates a value on every read from offset 0; always: on any file system, whose writer must then "
            + "update files in place (a file replaced by rename keeps answering its old content through an open "
            + "descriptor); never: open each file for each read.";

    public static final String SYSFS_RESCAN_MS_CONFIG = "collector.sysfs.rescan.ms";
    public static final long DEFAULT_SYSFS_RESCAN_MS = 60_000;
    private static final String SYSFS_RESCAN_MS_DOC = "How often a device's folders are listed again and its static "
            + "attributes (rate, link_layer, node_guid, fw_ver, board_id, hca_type) read again. A device is also "
            + "rescanned at once when a port's state or physical state changes and when one of its files goes "
            + "missing; devices that come or go are seen on the next pass regardless. 0: every pass.";

    public static final String DEVICES_INCLUDE_CONFIG = "collector.devices.include";
    public static final String DEFAULT_DEVICES_INCLUDE = ".*";
    private static final String DEVICES_INCLUDE_DOC = "Regular expression: only RDMA devices whose name matches are read "
            + "(e.g. erdma_.*|mlx5_[0-7]).";

    public static final String DEVICES_EXCLUDE_CONFIG = "collector.devices.exclude";
    public static final String DEFAULT_DEVICES_EXCLUDE = "";
    private static final String DEVICES_EXCLUDE_DOC = "Regular expression: RDMA devices whose name matches are skipped, "
            + "even when included (empty: none).";

    public static final String HOST_INTERFACES_CONFIG = "collector.host.interfaces";
    public static final String DEFAULT_HOST_INTERFACES = "";
    private static final String HOST_INTERFACES_DOC = "Comma-separated host network interfaces (e.g. eth0,bond0) whose "
            + "byte rates are published to the host-samples topic; storage and TCP traffic tell a checkpoint from a "
            + "hang. auto: the interface of the node's default route, read at start from collector.host.route.file "
            + "(none, with a log line, when it has no default route). Empty: none.";
    /** {@link #HOST_INTERFACES_CONFIG}'s keyword for the default route's interface. */
    public static final String HOST_INTERFACES_AUTO = "auto";

    public static final String HOST_ROUTE_FILE_CONFIG = "collector.host.route.file";
    public static final String DEFAULT_HOST_ROUTE_FILE = "/proc/1/net/route";
    private static final String HOST_ROUTE_FILE_DOC = "Route table (the format of /proc/net/route) whose default route "
            + "names the interface collector.host.interfaces=auto samples. /proc/1/net/route is the host's where the "
            + "collector shares the host's PID namespace (the DaemonSet's hostPID: true) or runs on the host.";

    public static final String PORT_SAMPLES_TOPIC_CONFIG = "collector.topic.port.samples";
    private static final String PORT_SAMPLES_TOPIC_DOC = "Topic for port samples.";

    public static final String HOST_SAMPLES_TOPIC_CONFIG = "collector.topic.host.samples";
    private static final String HOST_SAMPLES_TOPIC_DOC = "Topic for host-interface samples.";

    public static final String GPU_SAMPLES_TOPIC_CONFIG = "collector.topic.gpu.samples";
    private static final String GPU_SAMPLES_TOPIC_DOC = "Topic for GPU samples (one record per GPU per interval).";

    public static final String NO_DEVICE_WARN_INTERVAL_MS_CONFIG = "collector.no.device.warn.interval.ms";
    public static final long DEFAULT_NO_DEVICE_WARN_INTERVAL_MS = 600_000;
    private static final String NO_DEVICE_WARN_INTERVAL_MS_DOC = "When no RDMA device is found the collector keeps "
            + "running and repeats its warning at most this often.";

    public static final String METRICS_PORT_CONFIG = "metrics.port";
    public static final int DEFAULT_METRICS_PORT = 9464;
    private static final String METRICS_PORT_DOC = "Port of the Prometheus endpoint /metrics; -1 disables it.";

    public static final String METRICS_BIND_CONFIG = "metrics.bind.address";
    public static final String DEFAULT_METRICS_BIND = "0.0.0.0";
    private static final String METRICS_BIND_DOC = "Address the metrics endpoint binds to.";

    public static final ConfigDef CONFIG = PodResourcesConfig.define(PublishConfig.define(GpuConfig.define(EadmConfig.define(new ConfigDef()
            .define(NODE_CONFIG, Type.STRING, DEFAULT_NODE, Importance.HIGH, NODE_DOC)
            .define(MODE_CONFIG, Type.STRING, MODE_NODE, ConfigDef.ValidString.in(MODE_NODE, MODE_POD),
                    Importance.HIGH, MODE_DOC)
            .define(INTERVAL_MS_CONFIG, Type.LONG, DEFAULT_INTERVAL_MS, ConfigDef.Range.between(MIN_INTERVAL_MS, 3_600_000L),
                    Importance.HIGH, INTERVAL_MS_DOC)
            .define(SYSFS_ROOT_CONFIG, Type.STRING, DEFAULT_SYSFS_ROOT, new ConfigDef.NonEmptyString(), Importance.HIGH,
                    SYSFS_ROOT_DOC)
            .define(SYSFS_KEEP_OPEN_CONFIG, Type.STRING, KEEP_OPEN_AUTO,
                    ConfigDef.ValidString.in(KEEP_OPEN_AUTO, KEEP_OPEN_ALWAYS, KEEP_OPEN_NEVER), Importance.LOW,
                    SYSFS_KEEP_OPEN_DOC)
            .define(SYSFS_RESCAN_MS_CONFIG, Type.LONG, DEFAULT_SYSFS_RESCAN_MS, ConfigDef.Range.atLeast(0),
                    Importance.LOW, SYSFS_RESCAN_MS_DOC)
            .define(DEVICES_INCLUDE_CONFIG, Type.STRING, DEFAULT_DEVICES_INCLUDE, new RegexValidator(),
                    Importance.MEDIUM, DEVICES_INCLUDE_DOC)
            .define(DEVICES_EXCLUDE_CONFIG, Type.STRING, DEFAULT_DEVICES_EXCLUDE, new RegexValidator(),
                    Importance.MEDIUM, DEVICES_EXCLUDE_DOC)
            .define(HOST_INTERFACES_CONFIG, Type.LIST, DEFAULT_HOST_INTERFACES, Importance.MEDIUM, HOST_INTERFACES_DOC)
            .define(HOST_ROUTE_FILE_CONFIG, Type.STRING, DEFAULT_HOST_ROUTE_FILE, Importance.LOW, HOST_ROUTE_FILE_DOC)
            .define(PORT_SAMPLES_TOPIC_CONFIG, Type.STRING, Topics.PORT_SAMPLES, new ConfigDef.NonEmptyString(),
                    Importance.LOW, PORT_SAMPLES_TOPIC_DOC)
            .define(HOST_SAMPLES_TOPIC_CONFIG, Type.STRING, Topics.HOST_SAMPLES, new ConfigDef.NonEmptyString(),
                    Importance.LOW, HOST_SAMPLES_TOPIC_DOC)
            .define(GPU_SAMPLES_TOPIC_CONFIG, Type.STRING, Topics.GPU_SAMPLES, new ConfigDef.NonEmptyString(),
                    Importance.LOW, GPU_SAMPLES_TOPIC_DOC)
            .define(NO_DEVICE_WARN_INTERVAL_MS_CONFIG, Type.LONG, DEFAULT_NO_DEVICE_WARN_INTERVAL_MS,
                    ConfigDef.Range.atLeast(1_000L), Importance.LOW, NO_DEVICE_WARN_INTERVAL_MS_DOC)
            .define(METRICS_PORT_CONFIG, Type.INT, DEFAULT_METRICS_PORT, ConfigDef.Range.between(-1, 65_535),
                    Importance.MEDIUM, METRICS_PORT_DOC)
            .define(METRICS_BIND_CONFIG, Type.STRING, DEFAULT_METRICS_BIND, Importance.LOW, METRICS_BIND_DOC)))));

    public CollectorConfig(Map<?, ?> originals) {
        super(CONFIG, originals, false);
    }

    /** Loads defaults &lt; file &lt; {@code RDMAMON_*} environment &lt; flags. */
    public static CollectorConfig load(Path file, Map<String, String> env, Map<String, ?> flags) {
        return new CollectorConfig(ConfigLoader.load(CONFIG, file, env, flags, KAFKA_PREFIX));
    }

    public String node(Map<String, String> env) {
        String configured = getString(NODE_CONFIG);
        if (!configured.isBlank()) {
            return configured;
        }
        if (podMode()) {
            String namespace = env.get("POD_NAMESPACE");
            String pod = env.get("POD_NAME");
            if (namespace == null || namespace.isBlank() || pod == null || pod.isBlank()) {
                throw new ConfigException(MODE_CONFIG, MODE_POD, "pod mode names its records after the pod: set "
                        + "POD_NAMESPACE and POD_NAME from the downward API (metadata.namespace, metadata.name), or "
                        + NODE_CONFIG);
            }
            return PodIdentity.node(namespace.trim(), pod.trim());
        }
        String fromEnv = env.get("NODE_NAME");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            throw new ConfigException(NODE_CONFIG, "", "node name not set and the host name is unknown: set "
                    + NODE_CONFIG + " or NODE_NAME");
        }
    }

    public long intervalMs() {
        return getLong(INTERVAL_MS_CONFIG);
    }

    public Path sysfsRoot() {
        return Path.of(getString(SYSFS_ROOT_CONFIG));
    }

    /** Whether sysfs files stay open between passes (see {@link #SYSFS_KEEP_OPEN_CONFIG}). */
    public boolean keepSysfsFilesOpen() {
        return switch (getString(SYSFS_KEEP_OPEN_CONFIG)) {
            case KEEP_OPEN_ALWAYS -> true;
            case KEEP_OPEN_NEVER -> false;
            default -> SysfsPortSource.isSysfs(sysfsRoot());
        };
    }

    public Pattern devicesInclude() {
        return Pattern.compile(getString(DEVICES_INCLUDE_CONFIG));
    }

    /** Null when nothing is excluded. */
    public Pattern devicesExclude() {
        String regex = getString(DEVICES_EXCLUDE_CONFIG);
        return regex.isEmpty() ? null : Pattern.compile(regex);
    }

    public List<String> hostInterfaces() {
        List<String> configured = getList(HOST_INTERFACES_CONFIG);
        boolean auto = configured.equals(List.of(HOST_INTERFACES_AUTO));
        if ((configured.isEmpty() || auto) && podMode()) {
            return POD_MODE_INTERFACES;
        }
        if (auto) {
            return DefaultRoute.interfaceOf(Path.of(getString(HOST_ROUTE_FILE_CONFIG))).map(List::of).orElse(List.of());
        }
        return configured;
    }

    /** Runs inside one pod ({@link #MODE_CONFIG}). */
    public boolean podMode() {
        return MODE_POD.equals(getString(MODE_CONFIG));
    }
}
