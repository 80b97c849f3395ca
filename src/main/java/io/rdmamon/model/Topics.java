package io.rdmamon.model;

/** Kafka topic names: the public contracts between rdmamon's roles (schemas in docs/schemas.md). */
public final class Topics {
    /** One {@link PortSample} per RDMA port per interval; key {@code node/device/port}. */
    public static final String PORT_SAMPLES = "rdma.port-samples";
    /** One {@link HostIfaceSample} per host network interface per interval; key {@code node/iface}. */
    public static final String HOST_SAMPLES = "rdma.host-samples";
    /**
     * One {@link GpuSample} per GPU per interval; key {@code node/gpuIndex}, partitioned by node like the port samples.
     */
    public static final String GPU_SAMPLES = "rdma.gpu-samples";
    /** Job metadata, compacted; key = job uid. */
    public static final String JOBS = "rdma.jobs";
    /** Per node, which pod holds which RDMA devices ({@link PodDeviceMap}), compacted; key = node. */
    public static final String POD_DEVICES = "rdma.pod-devices";
    /**
     * Per node, whether its Node object is in the cluster ({@link NodeRecord}: Present or Deleted), compacted;
     * key = node. Written by {@code jobs watch}, read by the stream app's collector-silence detector.
     */
    public static final String NODES = "rdma.nodes";
    public static final String JOB_BANDWIDTH = "rdma.job-bandwidth";
    public static final String LINK_HEALTH = "rdma.link-health";
    public static final String ALERTS = "rdma.alerts";
    /** Records that could not be processed, with the reason in the headers. */
    public static final String DEAD_LETTER = "rdma.dead-letter";

    private Topics() {
    }
}
