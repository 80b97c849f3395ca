package io.rdmamon.collector.podresources;

import io.rdmamon.config.RegexValidator;
import io.rdmamon.model.Topics;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Settings of the collector's device attribution: which pod holds which RDMA device, from the kubelet's pod-resources
 * API. The collector folds these keys into its own definition ({@link #define}).
 */
public final class PodResourcesConfig extends AbstractConfig {
    public static final String SOCKET_CONFIG = "collector.podresources.socket";
    public static final String DEFAULT_SOCKET = "/var/lib/kubelet/pod-resources/kubelet.sock";
    private static final String SOCKET_DOC = "The kubelet's pod-resources socket (gRPC service v1.PodResourcesLister). "
            + "In the DaemonSet, mount the host's /var/lib/kubelet/pod-resources read-only at the same path. When the "
            + "socket does not exist at start (no Kubernetes), device attribution is off, with one log line. Empty: off.";

    public static final String INTERVAL_MS_CONFIG = "collector.podresources.interval.ms";
    public static final long DEFAULT_INTERVAL_MS = 10_000;
    private static final String INTERVAL_MS_DOC = "How often the kubelet is asked which pod holds which device. A pod "
            + "that starts is attributed within this time; at 10000 a job whose pods start at 12:00:00 has its "
            + "devices in the pod-devices topic by 12:00:10.";

    public static final String REPUBLISH_MS_CONFIG = "collector.podresources.republish.ms";
    public static final long DEFAULT_REPUBLISH_MS = 300_000;
    private static final String REPUBLISH_MS_DOC = "The node's map is published when it changes, and at least this "
            + "often even when it does not, so that its age tells readers the collector is alive.";

    public static final String TIMEOUT_MS_CONFIG = "collector.podresources.timeout.ms";
    public static final long DEFAULT_TIMEOUT_MS = 5_000;
    private static final String TIMEOUT_MS_DOC = "Deadline of one List call to the kubelet; a call that fails or times "
            + "out is counted (rdmamon.podresources.list.failures) and the last published map stands.";

    public static final String DEVICE_RESOURCES_CONFIG = "collector.podresources.device.resources";
    public static final String DEFAULT_DEVICE_RESOURCES = "aliyun/erdma";
    private static final String DEVICE_RESOURCES_DOC = "Extended resources whose device ids name the RDMA device, "
            + "optionally with a /N suffix: Alibaba's ACK eRDMA controller advertises erdma_0/0 ... erdma_0/199 for the "
            + "physical device erdma_0, so a pod holding erdma_0/17 uses erdma_0.";

    public static final String GPU_RESOURCES_CONFIG = "collector.podresources.gpu.resources";
    public static final String DEFAULT_GPU_RESOURCES = "nvidia.com/gpu";
    private static final String GPU_RESOURCES_DOC = "Extended resources whose device ids are GPU uuids (the NVIDIA device "
            + "plugin's nvidia.com/gpu): a pod holding them is listed with those GPUs, which jobs watch puts in its "
            + "ranks' gpus. Empty: GPUs are not attributed (a rank then holds every GPU of its node).";

    public static final String SHARED_RESOURCES_CONFIG = "collector.podresources.shared.resources";
    public static final String DEFAULT_SHARED_RESOURCES = "rdma/hca";
    private static final String SHARED_RESOURCES_DOC = "Extended resources of the RDMA shared device plugin: their ids "
            + "do not identify a device, every holder shares the devices the plugin's selectors chose. Holders are "
            + "marked shared; their devices are those matching collector.podresources.shared.devices.";

    public static final String SHARED_DEVICES_CONFIG = "collector.podresources.shared.devices";
    public static final String DEFAULT_SHARED_DEVICES = "";
    private static final String SHARED_DEVICES_DOC = "Regular expression over the node's RDMA devices "
            + "(<sysfs>/class/infiniband): the devices a shared resource gives its holders, as the shared device "
            + "plugin's selectors define them (e.g. mlx5_.*). Empty: unknown, such pods are listed with no device and "
            + "the resource under 'unresolved'.";

    public static final String TOPIC_CONFIG = "collector.topic.pod.devices";
    public static final String DEFAULT_TOPIC = Topics.POD_DEVICES;
    private static final String TOPIC_DOC = "Topic of the per-node pod device maps (compacted, key = node).";

    public PodResourcesConfig(Map<?, ?> originals) {
        super(define(new ConfigDef()), originals, false);
    }

    /** Adds this part's keys to {@code def} (the collector folds them into its own definition). */
    public static ConfigDef define(ConfigDef def) {
        return def
                .define(SOCKET_CONFIG, Type.STRING, DEFAULT_SOCKET, Importance.MEDIUM, SOCKET_DOC)
                .define(INTERVAL_MS_CONFIG, Type.LONG, DEFAULT_INTERVAL_MS, Range.between(1_000L, 3_600_000L),
                        Importance.MEDIUM, INTERVAL_MS_DOC)
                .define(REPUBLISH_MS_CONFIG, Type.LONG, DEFAULT_REPUBLISH_MS, Range.between(1_000L, 86_400_000L),
                        Importance.LOW, REPUBLISH_MS_DOC)
                .define(TIMEOUT_MS_CONFIG, Type.LONG, DEFAULT_TIMEOUT_MS, Range.between(100L, 600_000L),
                        Importance.LOW, TIMEOUT_MS_DOC)
                .define(DEVICE_RESOURCES_CONFIG, Type.LIST, DEFAULT_DEVICE_RESOURCES, Importance.MEDIUM,
                        DEVICE_RESOURCES_DOC)
                .define(GPU_RESOURCES_CONFIG, Type.LIST, DEFAULT_GPU_RESOURCES, Importance.MEDIUM, GPU_RESOURCES_DOC)
                .define(SHARED_RESOURCES_CONFIG, Type.LIST, DEFAULT_SHARED_RESOURCES, Importance.MEDIUM,
                        SHARED_RESOURCES_DOC)
                .define(SHARED_DEVICES_CONFIG, Type.STRING, DEFAULT_SHARED_DEVICES, new RegexValidator(),
                        Importance.MEDIUM, SHARED_DEVICES_DOC)
                .define(TOPIC_CONFIG, Type.STRING, DEFAULT_TOPIC, new ConfigDef.NonEmptyString(), Importance.LOW,
                        TOPIC_DOC);
    }

    /** Null when attribution is switched off. */
    public Path socket() {
        String socket = getString(SOCKET_CONFIG).trim();
        return socket.isEmpty() ? null : Path.of(socket);
    }

    public Duration interval() {
        return Duration.ofMillis(getLong(INTERVAL_MS_CONFIG));
    }

    public Duration republishInterval() {
        return Duration.ofMillis(getLong(REPUBLISH_MS_CONFIG));
    }

    public Duration timeout() {
        return Duration.ofMillis(getLong(TIMEOUT_MS_CONFIG));
    }

    public List<String> deviceResources() {
        return getList(DEVICE_RESOURCES_CONFIG);
    }

    public List<String> gpuResources() {
        return getList(GPU_RESOURCES_CONFIG);
    }

    public List<String> sharedResources() {
        return getList(SHARED_RESOURCES_CONFIG);
    }

    /** Null when the shared devices are unknown. */
    public Pattern sharedDevices() {
        String regex = getString(SHARED_DEVICES_CONFIG);
        return regex.isEmpty() ? null : Pattern.compile(regex);
    }

    public String topic() {
        return getString(TOPIC_CONFIG);
    }
}
