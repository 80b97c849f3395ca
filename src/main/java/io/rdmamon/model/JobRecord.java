package io.rdmamon.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.List;
import java.util.Map;

/**
 * Job metadata: topic {@link Topics#JOBS} (compacted), key = {@link #uid()}, record timestamp = {@link #updatedAt()}.
 * Which training job runs which rank in which pod on which node, using which RDMA devices.
 */
@JsonPropertyOrder({"v", "uid", "job", "namespace", "state", "updatedAt", "startedAt", "worldSize", "ranks", "labels"})
public record JobRecord(
        int v,
        String uid,
        String job,
        String namespace,
        String state,
        long updatedAt,
        Long startedAt,
        Integer worldSize,
        List<Rank> ranks,
        Map<String, String> labels) {

    public static final int VERSION = 1;
    public static final String PENDING = "Pending";
    public static final String RUNNING = "Running";
    public static final String SUCCEEDED = "Succeeded";
    public static final String FAILED = "Failed";
    public static final String DELETED = "Deleted";

    public JobRecord {
        ranks = ranks == null ? List.of() : ranks;
        labels = labels == null ? Map.of() : labels;
    }

    /**
     * One rank of the job: its pod, its node and the RDMA devices (physical names, e.g. erdma_0) it uses.
     * {@code instanceType} is the node's {@code node.kubernetes.io/instance-type} label (e.g. {@code ecs.ebmgn7ex}),
     * null when unknown; it is left out of the JSON then, so records without it stay as they were (added in issue 11,
     * {@code v} unchanged). {@code virtualNode} is the pod's {@code spec.nodeName} where the rank is monitored from
     * inside its pod (ACS: {@code node} is then the pod identity, and the virtual node, shared by many pods, says
     * where the platform placed it); null, and left out of the JSON, otherwise (added in issue 38, {@code v}
     * unchanged). The stream app does not read it. {@code gpus} are the uuids of the GPUs the rank's pod holds (the
     * kubelet's pod-resources for {@code nvidia.com/gpu}, or the pod's own GPUs in pod mode); empty, and left out of
     * the JSON, when unknown: the rank then holds every GPU of its node (added in issue 44, {@code v} unchanged).
     */
    @JsonPropertyOrder({"rank", "pod", "node", "devices", "instanceType", "virtualNode", "gpus"})
    public record Rank(int rank, String pod, String node, List<String> devices,
                       @JsonInclude(JsonInclude.Include.NON_NULL) String instanceType,
                       @JsonInclude(JsonInclude.Include.NON_NULL) String virtualNode,
                       @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> gpus) {
        public Rank {
            devices = devices == null ? List.of() : devices;
            gpus = gpus == null ? List.of() : gpus;
        }

        /** A rank whose GPUs are unknown: it holds every GPU of its node. */
        public Rank(int rank, String pod, String node, List<String> devices, String instanceType,
                    String virtualNode) {
            this(rank, pod, node, devices, instanceType, virtualNode, null);
        }

        /** A rank on a node of unknown instance type. */
        public Rank(int rank, String pod, String node, List<String> devices) {
            this(rank, pod, node, devices, null, null);
        }

        /** A rank on a node of its own. */
        public Rank(int rank, String pod, String node, List<String> devices, String instanceType) {
            this(rank, pod, node, devices, instanceType, null);
        }
    }
}
