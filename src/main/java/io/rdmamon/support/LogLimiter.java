package io.rdmamon.support;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Lets at most one log line per key through per period, so that a broken eadm or a flood of garbage lines shows up in
 * the log once a minute with a count, not once per line. The counters, not the log, carry the exact totals.
 */
public final class LogLimiter {
    /** Returned by {@link #admit} when the event must not be logged. */
    public static final long SUPPRESS = -1;

    private final long periodNanos;
    private final LongSupplier nanoClock;
    private final Map<String, Window> windows = new HashMap<>();

    public LogLimiter(Duration period) {
        this(period, System::nanoTime);
    }

    LogLimiter(Duration period, LongSupplier nanoClock) {
        this.periodNanos = period.toNanos();
        this.nanoClock = nanoClock;
    }

    /**
     * Records one event for {@code key}: {@link #SUPPRESS} when it must not be logged, otherwise the number of events of
     * that key suppressed since the last one logged (0 for the first).
     */
    public synchronized long admit(String key) {
        long now = nanoClock.getAsLong();
        Window w = windows.get(key);
        if (w == null) {
            windows.put(key, new Window(now));
            return 0;
        }
        if (now - w.loggedAtNanos < periodNanos) {
            w.suppressed++;
            return SUPPRESS;
        }
        long suppressed = w.suppressed;
        w.loggedAtNanos = now;
        w.suppressed = 0;
        return suppressed;
    }

    /** A log-line suffix for {@code suppressed} events, e.g. {@code " (12 more since the last report)"}, or empty. */
    public static String suffix(long suppressed) {
        return suppressed > 0 ? " (" + suppressed + " more since the last report)" : "";
    }

    private static final class Window {
        long loggedAtNanos;
        long suppressed;

        Window(long loggedAtNanos) {
            this.loggedAtNanos = loggedAtNanos;
        }
    }
}
