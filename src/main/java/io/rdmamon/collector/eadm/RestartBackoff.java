package io.rdmamon.collector.eadm;

import java.time.Duration;

/**
 * Exponential restart delay of one supervised eadm: initial, doubled per consecutive failure, capped at max; back to
 * initial after a stable run. Not thread-safe: owned by the device's supervising thread.
 */
final class RestartBackoff {
    private final long initialMs;
    private final long maxMs;
    private final long stableRunNanos;
    private long nextMs;

    RestartBackoff(Duration initial, Duration max, Duration stableRun) {
        this.initialMs = initial.toMillis();
        this.maxMs = max.toMillis();
        this.stableRunNanos = stableRun.toNanos();
        this.nextMs = initialMs;
    }

    /** The delay before the restart that follows a run of {@code runNanos} (0 when the start itself failed). */
    long delayMsAfter(long runNanos) {
        if (runNanos >= stableRunNanos && runNanos > 0) {
            nextMs = initialMs;
        }
        long delay = nextMs;
        nextMs = nextMs > maxMs / 2 ? maxMs : nextMs * 2;
        return delay;
    }
}
