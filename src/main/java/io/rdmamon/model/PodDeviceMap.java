package io.rdmamon.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.List;

/**
 * Which pod on a node holds which RDMA devices and GPUs, as the node's kubelet reports it: topic {@link Topics#POD_DEVICES}
 * (compacted), key = {@link #node()}, record timestamp = {@link #ts()}. One record carries the node's whole map, so
 * the latest record per node is the truth and a pod missing from it holds nothing.
 *
 * <p>Published by the collector when the map changes (and at least every few minutes); read by {@code jobs watch} to
 * fill {@link JobRecord.Rank#devices()} and {@link JobRecord.Rank#gpus()}.
 */
@JsonPropertyOrder({"v", "node", "ts", "pods"})
public record PodDeviceMap(int v, String node, long ts, List<PodDevices> pods) {
    public static final int VERSION = 1;

    public PodDeviceMap {
        pods = pods == null ? List.of() : pods;
    }

    /** Same node and same pods (the timestamp aside). */
    public boolean sameMapping(PodDeviceMap other) {
        return other != null && node.equals(other.node) && pods.equals(other.pods);
    }

    /**
     * One pod's RDMA devices and GPUs.
     *
     * @param devices    physical device names ({@code erdma_0}, {@code mlx5_3}), sorted; empty when none could be
     *                   told (see {@code unresolved})
     * @param shared     whether some of the devices come from a shared resource ({@code rdma/hca}): other pods use
     *                   them too, so their bytes are not this pod's alone
     * @param unresolved resources the pod holds whose ids name no device rdmamon can find (e.g. {@code rdma/hca}
     *                   without {@code collector.podresources.shared.devices}); the pod's devices are then unknown
     *                   in part
     * @param gpus       uuids of the GPUs the pod holds ({@code nvidia.com/gpu}, or in pod mode the GPUs the pod
     *                   sees), sorted; empty, and left out of the JSON, when it holds none or they are unknown (added
     *                   in issue 44, {@code v} unchanged)
     */
    @JsonPropertyOrder({"namespace", "pod", "devices", "shared", "unresolved", "gpus"})
    public record PodDevices(String namespace, String pod, List<String> devices, boolean shared,
                             List<String> unresolved, @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> gpus) {
        public PodDevices {
            devices = devices == null ? List.of() : devices;
            unresolved = unresolved == null ? List.of() : unresolved;
            gpus = gpus == null ? List.of() : gpus;
        }

        /** A pod whose GPUs are not known. */
        public PodDevices(String namespace, String pod, List<String> devices, boolean shared,
                          List<String> unresolved) {
            this(namespace, pod, devices, shared, unresolved, null);
        }
    }
}
