package io.rdmamon.collector.gpu;

import java.util.List;

/**
 * Where the GPU source's readings come from: NVML in the collector's own process ({@link NvmlReader}), or nvidia-smi
 * where NVML cannot be loaded ({@link NvidiaSmiReader}). Either reads every GPU several times per interval on a thread
 * of its own, never more than one driver call (or nvidia-smi run) and one process count outstanding, and retries a
 * missing driver with backoff.
 */
interface GpuReader extends AutoCloseable {
    /**
     * The mean of each GPU's readings since the last call (a GPU not read since is absent); nothing while a driver
     * call is stuck. Called once per collector interval at {@code nowNanos}; also the watchdog of stuck calls.
     */
    List<GpuReading> take(long nowNanos);

    /** The latest process count, null before the first (or when processes are not counted). */
    GpuProcesses processes();

    /** True while no driver or no GPU was found (retried with backoff). */
    boolean noDriver();

    /** True while a driver call, nvidia-smi run or process count has not returned for the silence timeout. */
    boolean stuck();

    /** What reads the GPUs, for the log. */
    String describe();

    @Override
    void close();
}
