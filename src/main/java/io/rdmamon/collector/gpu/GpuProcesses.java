package io.rdmamon.collector.gpu;

import java.util.List;
import java.util.Map;

/**
 * The compute processes of the node's GPUs as one count read them at {@code readAtNanos} ({@link System#nanoTime()}):
 * their pids by GPU uuid. {@code absentMeansNone}: a GPU not in the map had no process (nvidia-smi lists processes,
 * not GPUs); otherwise its processes could not be read.
 */
public record GpuProcesses(Map<String, List<Long>> pidsByUuid, boolean absentMeansNone, long readAtNanos) {
    public GpuProcesses {
        pidsByUuid = Map.copyOf(pidsByUuid);
    }

    /** The pids on GPU {@code uuid}, or null when they could not be read. */
    public List<Long> pids(String uuid) {
        List<Long> pids = pidsByUuid.get(uuid);
        return pids != null ? pids : absentMeansNone ? List.of() : null;
    }

    /** The number of compute processes on GPU {@code uuid}, or null when they could not be read. */
    Integer count(String uuid) {
        List<Long> pids = pids(uuid);
        return pids == null ? null : pids.size();
    }
}
