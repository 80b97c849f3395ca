package io.rdmamon.collector.sysfs;

/**
 * Turning two readings of a monotonic counter into an honest increment or rate. There is no increment when either
 * reading is saturated (the counter stopped counting) or when the counter went down (it was reset: driver reload,
 * {@code perfquery -R}); the caller re-baselines on the newer reading. Values are compared as unsigned 64-bit.
 */
public final class Increments {
    private static final double NANOS_PER_SECOND = 1_000_000_000d;

    private Increments() {
    }

    /** {@code current - previous}, or {@code null} when that would not be the true count. */
    public static Long increment(long previous, long current, long saturatedValue) {
        return isTrue(previous, current, saturatedValue) ? current - previous : null;
    }

    /** Whether {@code current - previous} is the true count: neither saturated, and no reset in between. */
    public static boolean isTrue(long previous, long current, long saturatedValue) {
        return previous != saturatedValue && current != saturatedValue && Long.compareUnsigned(current, previous) >= 0;
    }

    /** An increment (times its unit, e.g. 4 bytes per data word) per second; {@code null} in gives {@code null}. */
    public static Double perSecond(Long increment, long unit, long intervalNanos) {
        return increment == null ? null : perSecond(increment.longValue(), unit, intervalNanos);
    }

    /** An increment (times its unit) per second, or {@code null} without an interval. */
    public static Double perSecond(long increment, long unit, long intervalNanos) {
        if (intervalNanos <= 0) {
            return null;
        }
        return (double) increment * unit * NANOS_PER_SECOND / intervalNanos;
    }

    /** A monotonic interval in whole milliseconds, rounded. */
    public static long toMillis(long intervalNanos) {
        return (intervalNanos + 500_000) / 1_000_000;
    }
}
