package io.rdmamon.support;

import java.time.Duration;

/**
 * Exponential backoff: {@code initial}, then doubling per consecutive failure, capped at {@code max}. The one rule
 * every retrying part uses (sink writes, alert delivery, eadm restarts); each keeps its own policy around it
 * (jitter, reset after a stable run).
 */
public record Backoff(Duration initial, Duration max) {

    /** The wait after the {@code attempt}-th consecutive failure (1-based). */
    public Duration delay(int attempt) {
        int doublings = Math.min(Math.max(attempt - 1, 0), 30);
        long millis = initial.toMillis() << doublings;
        return millis <= 0 || millis > max.toMillis() ? max : Duration.ofMillis(millis);
    }
}
