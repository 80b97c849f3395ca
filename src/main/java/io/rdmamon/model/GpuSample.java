package io.rdmamon.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.List;

/**
 * One GPU's activity over one sampling interval: topic {@link Topics#GPU_SAMPLES}, key {@link #key()}
 * ({@code node/gpuIndex}). The network alone cannot tell a hang from a pause quickly; the GPUs can: every GPU of a job
 * busy with no memory traffic while the network is quiet means every rank waits inside a collective.
 *
 * <p>Values follow NVML: {@code utilizationPercent} is the share of the interval in which a kernel ran,
 * {@code memoryUtilizationPercent} the share in which device memory was read or written. Any value is {@code null}
 * when the driver did not report it ("[N/A]", "[Not Supported]"); {@code processes} is {@code null} when the process
 * count could not be read (a pod that cannot see the host's process table) or was not read within the interval.
 *
 * <p>Optional fields ({@code v} unchanged, left out when null): {@code migDevices}, the uuids of the MIG devices on
 * this GPU (a rank whose pod holds one is judged by this GPU's sample); {@code error}, why the GPU's readings failed
 * this interval (the GPU fell off the bus, NVML reports it lost), its values then null; the activity of the GPU's
 * compute processes over the interval (their process trees: threads and children): {@code processCpuCores},
 * {@code processReadBytesPerSec} and {@code processWriteBytesPerSec} (every byte read or written through a system call,
 * {@code rchar}/{@code wchar} of {@code /proc/<pid>/io}), {@code processStates} (the state letters seen, e.g. "R",
 * "T", "DS").
 */
@JsonPropertyOrder({"v", "node", "gpu", "uuid", "ts", "intervalMs", "utilizationPercent", "memoryUtilizationPercent",
        "powerWatts", "smClockMHz", "processes", "migDevices", "error", "processCpuCores", "processReadBytesPerSec",
        "processWriteBytesPerSec", "processStates"})
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
        Integer processes,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> migDevices,
        @JsonInclude(JsonInclude.Include.NON_NULL) String error,
        @JsonInclude(JsonInclude.Include.NON_NULL) Double processCpuCores,
        @JsonInclude(JsonInclude.Include.NON_NULL) Double processReadBytesPerSec,
        @JsonInclude(JsonInclude.Include.NON_NULL) Double processWriteBytesPerSec,
        @JsonInclude(JsonInclude.Include.NON_NULL) String processStates) {

    public static final int VERSION = 1;

    /** A sample without the optional fields (no MIG devices, no error, no process activity). */
    public GpuSample(int v, String node, int gpu, String uuid, long ts, long intervalMs, Double utilizationPercent,
                     Double memoryUtilizationPercent, Double powerWatts, Double smClockMHz, Integer processes) {
        this(v, node, gpu, uuid, ts, intervalMs, utilizationPercent, memoryUtilizationPercent, powerWatts, smClockMHz,
                processes, null, null, null, null, null, null);
    }

    public String key() {
        return key(node, gpu);
    }

    public static String key(String node, int gpu) {
        return node + "/" + gpu;
    }

    /** The same sample at another time: a node's clock corrected (io.rdmamon.clock). */
    public GpuSample withTs(long newTs) {
        return new GpuSample(v, node, gpu, uuid, newTs, intervalMs, utilizationPercent, memoryUtilizationPercent,
                powerWatts, smClockMHz, processes, migDevices, error, processCpuCores, processReadBytesPerSec,
                processWriteBytesPerSec, processStates);
    }

    /** The same sample with its compute processes' activity over the interval. */
    public GpuSample withProcessActivity(Double cpuCores, Double readBytesPerSec, Double writeBytesPerSec,
                                         String states) {
        return new GpuSample(v, node, gpu, uuid, ts, intervalMs, utilizationPercent, memoryUtilizationPercent,
                powerWatts, smClockMHz, processes, migDevices, error, cpuCores, readBytesPerSec, writeBytesPerSec,
                states);
    }
}
