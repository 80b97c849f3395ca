package io.rdmamon.jobs.k8s;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which pods are monitored from inside (serverless GPU pods: Alibaba Cloud ACS) and which are meant to run their
 * collectives over sockets. On ACS a pod asks for RDMA with {@code alibabacloud.com/hpn-type: rdma} and names its GPU
 * with {@code alibabacloud.com/gpu-model-series}; on P16EN the platform's guidance is {@code NCCL_IB_DISABLE=1} and
 * {@code NCCL_SOCKET_IFNAME=eth0}: sockets are the intended path there, not a fallback. A job says otherwise with the
 * annotations {@value #TRANSPORT_ANNOTATION} ({@code socket} or {@code rdma}) and {@value #INTERFACE_ANNOTATION} on its
 * pod template.
 */
final class PlatformRules {
    static final String TRANSPORT_ANNOTATION = "rdmamon.io/transport";
    static final String INTERFACE_ANNOTATION = "rdmamon.io/socket-interface";
    static final String SOCKET = "socket";
    static final String RDMA = "rdma";

    public static final String IN_POD_LABELS_CONFIG = "jobs.watch.in.pod.labels";
    public static final String DEFAULT_IN_POD_LABELS = "alibabacloud.com/compute-class=gpu";
    private static final String IN_POD_LABELS_DOC = "label=value entries: a training pod carrying any of them is "
            + "monitored by a collector inside the pod (collector.mode=pod; ACS GPU pods run on virtual nodes, with no "
            + "node to run a DaemonSet on). Its rank's node is then <namespace>.<pod>, the name that collector "
            + "reports, not spec.nodeName. Empty: none.";

    public static final String MODEL_LABEL_CONFIG = "jobs.watch.model.label";
    public static final String DEFAULT_MODEL_LABEL = "alibabacloud.com/gpu-model-series";
    private static final String MODEL_LABEL_DOC = "Pod label naming the GPU model (ACS: P16EN, GU8TF, GU8TEF, GX8SF). "
            + "An in-pod rank carries it as its instanceType, so streams.nic.expected.instance.types takes expected "
            + "bandwidth per model (P16EN=...) beside the ECS instance types. Empty: not read.";

    public static final String SOCKET_MODELS_CONFIG = "jobs.watch.socket.models";
    public static final String DEFAULT_SOCKET_MODELS = "P16EN";
    private static final String SOCKET_MODELS_DOC = "GPU models (values of jobs.watch.model.label) whose intended "
            + "collective transport is NCCL's socket transport: their ranks' traffic is read from "
            + "jobs.watch.socket.interface, counts in their bandwidth, is judged by STALLED_SYNC, and TCP_FALLBACK stays "
            + "silent for them. A pod annotation rdmamon.io/transport=socket|rdma overrides this per job.";

    public static final String SOCKET_INTERFACE_CONFIG = "jobs.watch.socket.interface";
    public static final String DEFAULT_SOCKET_INTERFACE = "eth0";
    private static final String SOCKET_INTERFACE_DOC = "The interface NCCL's socket transport uses "
            + "(NCCL_SOCKET_IFNAME), e.g. eth0 or hpn0; the collector must sample it (collector.host.interfaces; in pod "
            + "mode eth0,hpn0 by default). A pod annotation rdmamon.io/socket-interface overrides it.";

    static final PlatformRules NONE = new PlatformRules(Map.of(), null, Set.of(), DEFAULT_SOCKET_INTERFACE);

    private final Map<String, String> inPodLabels;
    private final String modelLabel;
    private final Set<String> socketModels;
    private final String socketInterface;

    PlatformRules(Map<String, String> inPodLabels, String modelLabel, Set<String> socketModels,
                  String socketInterface) {
        this.inPodLabels = Map.copyOf(inPodLabels);
        this.modelLabel = modelLabel;
        this.socketModels = socketModels.stream().map(m -> m.toUpperCase(Locale.ROOT)).collect(Collectors.toSet());
        this.socketInterface = socketInterface;
    }

    static ConfigDef define(ConfigDef def) {
        return def
                .define(IN_POD_LABELS_CONFIG, Type.LIST, DEFAULT_IN_POD_LABELS, Importance.MEDIUM, IN_POD_LABELS_DOC)
                .define(MODEL_LABEL_CONFIG, Type.STRING, DEFAULT_MODEL_LABEL, Importance.LOW, MODEL_LABEL_DOC)
                .define(SOCKET_MODELS_CONFIG, Type.LIST, DEFAULT_SOCKET_MODELS, Importance.MEDIUM, SOCKET_MODELS_DOC)
                .define(SOCKET_INTERFACE_CONFIG, Type.STRING, DEFAULT_SOCKET_INTERFACE,
                        new ConfigDef.NonEmptyString(), Importance.LOW, SOCKET_INTERFACE_DOC);
    }

    static PlatformRules of(AbstractConfig config) {
        Map<String, String> labels = new HashMap<>();
        for (String entry : config.getList(IN_POD_LABELS_CONFIG)) {
            int eq = entry.indexOf('=');
            if (eq <= 0) {
                throw new ConfigException(IN_POD_LABELS_CONFIG, entry, "not label=value, e.g. "
                        + DEFAULT_IN_POD_LABELS);
            }
            labels.put(entry.substring(0, eq).trim(), entry.substring(eq + 1).trim());
        }
        String model = config.getString(MODEL_LABEL_CONFIG).trim();
        return new PlatformRules(labels, model.isEmpty() ? null : model,
                Set.copyOf(config.getList(SOCKET_MODELS_CONFIG)), config.getString(SOCKET_INTERFACE_CONFIG).trim());
    }

    PodPlatform of(Map<String, String> labels, Map<String, String> annotations) {
        boolean inPod = inPodLabels.entrySet().stream().anyMatch(e -> e.getValue().equals(labels.get(e.getKey())));
        String model = modelLabel == null ? null : labels.get(modelLabel);
        model = model == null || model.isBlank() ? null : model.trim();
        String transport = annotations.get(TRANSPORT_ANNOTATION);
        boolean socket = transport != null && !transport.isBlank()
                ? SOCKET.equalsIgnoreCase(transport.trim())
                : model != null && socketModels.contains(model.toUpperCase(Locale.ROOT));
        String iface = annotations.get(INTERFACE_ANNOTATION);
        iface = iface == null || iface.isBlank() || iface.contains("/") ? socketInterface : iface.trim();
        if (!inPod && model == null && !socket) {
            return PodPlatform.NODE;
        }
        return new PodPlatform(inPod, model, socket ? iface : null);
    }

    /** The annotations {@link #of} reads: the pod cache keeps these only. */
    static Map<String, String> readAnnotations(Map<String, String> annotations) {
        if (annotations == null || annotations.isEmpty()) {
            return null;
        }
        Map<String, String> kept = new HashMap<>();
        for (String key : List.of(TRANSPORT_ANNOTATION, INTERFACE_ANNOTATION)) {
            String value = annotations.get(key);
            if (value != null) {
                kept.put(key, value);
            }
        }
        return kept.isEmpty() ? null : kept;
    }
}
