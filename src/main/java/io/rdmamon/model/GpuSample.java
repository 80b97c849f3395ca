package io.rdmamon.model;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One GPU's activity over one sampling interval: topic {@link Topics#GPU_SAMPLES}, key {@link #key()}
 * ({@code node/gpuIndex}). The network alone cannot tell a hang from a pause quickly; the GPUs can: every GPU of a job
 * busy with no memory traffic while the network is quiet means every rank waits inside a collective.
 *
 * <p>Values follow NVML: {@code utilizationPercent} is the share of the interval in which a kernel ran,
 * {@code memoryUtilizationPercent} the share in which device memory was read or written. Any value is {@code null}
 * when the driver did not report it ("[N/A]", "[Not Supported]"); {@code processes} is {@code null} when the process
 * count could not be read (a pod that cannot see the host's process table).
 */
@JsonPropertyOrder({"v", "node", "gpu", "uuid", "ts", "intervalMs", "utilizationPercent", "memoryUtilizationPercent",
        "powerWatts", "smClockMHz", "processes"})
public record GpuSample(
        int v,
        String node,
        int gpu,
        String uuid,
        long ts,
        long intervalMs,
        Double utilizationPercent,
        Double memoryUtilizationPercent,
        Double powerWatts,
        Double smClockMHz,
        Integer processes) {

    public static final int VERSION = 1;

    public String key() {
        return key(node, gpu);
    }

    public static String key(String node, int gpu) {
        return node + "/" + gpu;
    }

    /** The same sample at another time: a node's clock corrected (io.rdmamon.clock). */
    public GpuSample withTs(long newTs) {
        return new GpuSample(v, node, gpu, uuid, newTs, intervalMs, utilizationPercent, memoryUtilizationPercent,
                powerWatts, smClockMHz, processes);
    }
}
