package io.rdmamon.sim;

/**
 * Periodic checkpoints: from {@code firstAtMs}, every {@code everyMs}, all ranks stop gradient sync for
 * {@code durationMs} and write their shard to storage over the host network at {@code egressBytesPerSec} — RDMA
 * quiet while host egress rises, the checkpoint signature detectors must not confuse with a hang.
 */
public record CheckpointSchedule(long firstAtMs, long everyMs, long durationMs, double egressBytesPerSec) {

    public CheckpointSchedule {
        if (everyMs <= durationMs || durationMs <= 0) {
            throw new IllegalArgumentException("need 0 < durationMs < everyMs, got durationMs=" + durationMs
                    + " everyMs=" + everyMs);
        }
    }

    public boolean inCheckpoint(long t) {
        return t >= firstAtMs && Math.floorMod(t - firstAtMs, everyMs) < durationMs;
    }
}
