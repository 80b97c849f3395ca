package io.rdmamon.sim;

/**
 * A data loader reading training shards over the host network while the job trains: every {@code everyMs}, for
 * {@code busyMs}, each rank's node receives {@code rxBytesPerSec} and sends {@code txBytesPerSec} (requests,
 * acknowledgements). One-sided traffic on eth0 next to RDMA gradient traffic: not a TCP fallback.
 */
public record DataLoading(long everyMs, long busyMs, double rxBytesPerSec, double txBytesPerSec) {

    public DataLoading {
        if (busyMs <= 0 || busyMs > everyMs) {
            throw new IllegalArgumentException("need 0 < busyMs <= everyMs, got busyMs=" + busyMs + " everyMs="
                    + everyMs);
        }
    }

    /** Whether the loader is reading {@code sinceStartMs} after the job began training. */
    public boolean busy(long sinceStartMs) {
        return Math.floorMod(sinceStartMs, everyMs) < busyMs;
    }
}
