package io.rdmamon.jobs.k8s;

import io.rdmamon.jobs.SocketPorts;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.PodDeviceMap.PodDevices;
import io.rdmamon.model.PodIdentity;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Builds a job's record from its pods.
 * <ul>
 *   <li>state: any pod Failed → Failed; else any pod pending (phase Pending or Unknown, or a container waiting, as
 *       while it restarts) → Pending; else all Succeeded → Succeeded; else Running (the pods that have not finished
 *       run: workers often end before the master);</li>
 *   <li>ranks: {@link RankRule}; node = the pod's node; devices from the pod-devices topic, empty when unknown;
 *       instanceType = the node's instance-type label, null when unknown. A pod monitored from inside
 *       ({@link PodPlatform#inPod()}) has node = {@link PodIdentity}, instanceType = its GPU model and virtualNode =
 *       its {@code spec.nodeName} (kept for the operator only); a pod whose
 *       collectives are meant to use sockets has the socket interface as its one device, and the job the label
 *       {@value SocketPorts#TRANSPORT_LABEL}=socket;</li>
 *   <li>startedAt: the earliest pod start time; labels: those all pods share, plus {@value #FRAMEWORK_LABEL},
 *       {@value #RESTARTS_LABEL} (container restarts over all pods) and, when some rank's devices are shared with
 *       other pods, {@value #SHARED_LABEL}=true.</li>
 * </ul>
 */
final class JobAssembler {
    static final String FRAMEWORK_LABEL = "rdmamon.io/framework";
    static final String RESTARTS_LABEL = "rdmamon.io/restarts";
    static final String SHARED_LABEL = "rdmamon.io/shared-devices";

    /** Where a pod's devices come from; null when not known. */
    interface DeviceSource {
        PodDevices devices(String node, String namespace, String pod);
    }

    /** Where a node's instance type comes from; null when not known. */
    interface InstanceTypeSource {
        InstanceTypeSource NONE = node -> null;

        String instanceType(String node);
    }

    private final RankRule rankRule;

    JobAssembler(RankRule rankRule) {
        this.rankRule = rankRule;
    }

    /** {@code pods}: all pods of one job (same uid), at least one. */
    JobRecord assemble(List<TrainingPod> pods, RankRule.Shape shape, DeviceSource devices,
                       InstanceTypeSource instanceTypes, long updatedAt) {
        TrainingPod first = pods.get(0);
        List<RankRule.Ranked> ranked = rankRule.rank(pods, shape);
        List<JobRecord.Rank> ranks = new ArrayList<>();
        boolean shared = false;
        boolean socket = false;
        for (RankRule.Ranked r : ranked) {
            TrainingPod p = r.pod();
            PodPlatform platform = p.platform();
            // in the pod, the collector names its samples after the pod: a virtual node is shared by many pods
            String node = platform.inPod() ? PodIdentity.node(p.namespace(), p.pod()) : p.node();
            PodDevices held = node == null ? null : devices.devices(node, p.namespace(), p.pod());
            shared |= held != null && held.shared() && !platform.socket();
            socket |= platform.socket();
            // sockets intended: the collective's traffic is the interface NCCL uses, an idle RDMA device is not its
            List<String> used = platform.socket() ? List.of(platform.socketInterface())
                    : held == null ? List.of() : held.devices();
            String type = platform.inPod() ? platform.model()
                    : node == null ? null : instanceTypes.instanceType(node);
            // the virtual node is kept for the operator: where the platform placed the pod
            List<String> gpus = held == null ? List.of() : held.gpus();
            ranks.add(new JobRecord.Rank(r.rank(), p.pod(), node, used, type, platform.inPod() ? p.node() : null,
                    gpus));
        }
        Map<String, String> labels = commonLabels(pods);
        if (socket) {
            labels.put(SocketPorts.TRANSPORT_LABEL, SocketPorts.SOURCE);
        }
        labels.put(FRAMEWORK_LABEL, first.framework());
        labels.put(RESTARTS_LABEL, Integer.toString(pods.stream().mapToInt(TrainingPod::restarts).sum()));
        if (shared) {
            labels.put(SHARED_LABEL, "true");
        }
        Long startedAt = pods.stream().map(TrainingPod::startedAt).filter(Objects::nonNull).min(Long::compare)
                .orElse(null);
        return new JobRecord(JobRecord.VERSION, first.uid(), first.job(), first.namespace(), state(pods), updatedAt,
                startedAt, RankRule.worldSize(ranked, shape), List.copyOf(ranks), labels);
    }

    /** The record that says the job is gone: its last identity, no ranks. */
    static JobRecord deleted(JobRecord last, long updatedAt) {
        return new JobRecord(JobRecord.VERSION, last.uid(), last.job(), last.namespace(), JobRecord.DELETED,
                updatedAt, last.startedAt(), last.worldSize(), List.of(), last.labels());
    }

    /** The same record at another time. */
    static JobRecord withUpdatedAt(JobRecord r, long updatedAt) {
        return new JobRecord(r.v(), r.uid(), r.job(), r.namespace(), r.state(), updatedAt, r.startedAt(),
                r.worldSize(), r.ranks(), r.labels());
    }

    static String state(List<TrainingPod> pods) {
        if (pods.stream().anyMatch(p -> p.state() == PodState.FAILED)) {
            return JobRecord.FAILED;
        }
        if (pods.stream().anyMatch(p -> p.state() == PodState.PENDING)) {
            return JobRecord.PENDING;
        }
        if (pods.stream().allMatch(p -> p.state() == PodState.SUCCEEDED)) {
            return JobRecord.SUCCEEDED;
        }
        return JobRecord.RUNNING;
    }

    private static Map<String, String> commonLabels(List<TrainingPod> pods) {
        Map<String, String> common = new HashMap<>(pods.get(0).labels());
        for (TrainingPod p : pods) {
            common.entrySet().removeIf(e -> !e.getValue().equals(p.labels().get(e.getKey())));
        }
        return new TreeMap<>(common);
    }
}
