package io.rdmamon.alerts;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * Exponential backoff for a receiver that is down: initial, 2 x, 4 x ... up to the maximum, each shortened by up to
 * 20% at random so that several rdmamon instances do not retry in lockstep; {@link #reset()} after a success.
 */
final class Backoff {
    static final double JITTER = 0.2;

    private final io.rdmamon.support.Backoff doubling;
    private final DoubleSupplier random;
    private int failures;

    /** @param random uniform in [0, 1), e.g. {@code Math::random} */
    Backoff(Duration initial, Duration max, DoubleSupplier random) {
        this.doubling = new io.rdmamon.support.Backoff(initial, max);
        this.random = random;
    }

    /** The wait before the next attempt; each call counts one more failure. */
    Duration next() {
        failures++;
        long capped = doubling.delay(failures).toMillis();
        return Duration.ofMillis(Math.round(capped * (1 - JITTER * random.getAsDouble())));
    }

    /** Failures since the last success. */
    int failures() {
        return failures;
    }

    void reset() {
        failures = 0;
    }
}
