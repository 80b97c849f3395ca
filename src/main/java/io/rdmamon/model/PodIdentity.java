package io.rdmamon.model;

/**
 * The node name of a pod monitored from inside itself (the collector's pod mode: ACS serverless GPU pods, which have
 * no node of their own to run a DaemonSet on). Such a pod's samples and its rank in the job record carry
 * {@code <namespace>.<pod>} as {@code node}: a virtual node is shared by many pods, so the pod, not
 * {@code spec.nodeName}, identifies a collector. The collector and {@code jobs watch} both build it here, so the job
 * join holds. A namespace is a DNS label (no dot), so the first dot separates the two parts.
 */
public final class PodIdentity {
    private PodIdentity() {
    }

    public static String node(String namespace, String pod) {
        if (namespace == null || namespace.isBlank() || pod == null || pod.isBlank()) {
            throw new IllegalArgumentException("a pod identity needs a namespace and a pod name, got '" + namespace
                    + "' and '" + pod + "'");
        }
        return namespace + "." + pod;
    }
}
