package io.rdmamon.collector.process;

import io.rdmamon.support.Backoff;

import java.time.Duration;

/**
 * Exponential restart delay of one supervised process (eadm, nvidia-smi): initial, doubled per consecutive failure, capped at max; back to
 * initial after a stable run. Not thread-safe: owned by the device's supervising thread.
 */
public final class RestartBackoff {
    private final Backoff doubling;
    private final long stableRunNanos;
    private int failures;

    public RestartBackoff(Duration initial, Duration max, Duration stableRun) {
        this.doubling = new Backoff(initial, max);
        this.stableRunNanos = stableRun.toNanos();
    }

    /** The delay before the restart that follows a run of {@code runNanos} (0 when the start itself failed). */
    public long delayMsAfter(long runNanos) {
        if (runNanos >= stableRunNanos && runNanos > 0) {
            failures = 0;
        }
        failures = Math.min(failures + 1, 31);
        return doubling.delay(failures).toMillis();
    }
}
