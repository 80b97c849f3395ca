package io.rdmamon.jobs.k8s;

/**
 * How a training pod is monitored and which transport its collectives are meant to use ({@link PlatformRules}).
 *
 * @param inPod           monitored from inside the pod (ACS: no node of its own): its rank's node is
 *                        {@link io.rdmamon.model.PodIdentity}, {@code spec.nodeName} (a virtual node) is not used
 * @param model           the pod's GPU model ({@code alibabacloud.com/gpu-model-series}), null when not labelled
 * @param socketInterface the interface NCCL's socket transport uses when sockets are the intended path (P16EN:
 *                        {@code eth0}); null when RDMA is intended
 */
record PodPlatform(boolean inPod, String model, String socketInterface) {
    static final PodPlatform NODE = new PodPlatform(false, null, null);

    boolean socket() {
        return socketInterface != null;
    }
}
