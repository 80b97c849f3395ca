package io.rdmamon.clock;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The stream app's own wall clock as a reference for every node's clock, across the stream tasks of one instance (the
 * nodes of every partition it reads): what the partitions' peers cannot give when a partition holds one or two nodes.
 *
 * <p>Each node's measure is the <em>age</em> of its samples on arrival, {@code wall clock − ts}: for a node with a
 * right clock, the delay of delivery (≥ 0: sampling to publishing, the broker, processing lag); for a node off by
 * {@code o}, that delay minus {@code o}. Two things follow, whatever the node's partition peers say:
 * <ul>
 *   <li>samples steadily from the future (age below −bound) come from a clock ahead by at least that much, as no delay
 *       is negative; and
 *   <li>a node whose samples arrive fresh (an age within the bound) is not behind by more than the bound.
 * </ul>
 * Both hold only while the app's own clock is right. It is taken as right while some node's samples are not from its
 * future: when every node heard from looks ahead, it is the app's clock that is behind, and the wall clock is no
 * reference ({@link #trusted}). What is measured is against {@link #base}, the lead of the node least ahead (0 when
 * some node is not ahead at all).
 *
 * <p>A clock behind cannot be told from lag this way alone (a backlog, or a partition read late, makes samples old
 * too); {@link ClockOffsets} says when it may be.
 *
 * <p>Thread-safe: one per topology (shared by the stream threads of an instance, or by one replay). The figures over
 * all nodes are computed again at most once a second of wall time.
 */
public final class WallClockReference {
    /** A node not heard from for this long (wall clock) counts no more. */
    static final long FRESH_MS = ClockOffsets.FRESH_MS;
    private static final long RECOMPUTE_MS = 1_000;

    private final long boundMs;
    /** Each node's median age of its recent samples, and when it was last heard from. */
    private final Map<String, Heard> ages = new ConcurrentHashMap<>();
    private volatile long computedAt = Long.MIN_VALUE;
    private volatile long base;
    private volatile long lowerMedianAge = Long.MAX_VALUE;

    /** @param boundMs {@code streams.clock.skew.max.ms} */
    public WallClockReference(long boundMs) {
        this.boundMs = boundMs;
    }

    /** The node's median age (ms, wall clock − ts) of its recent samples, at wall time {@code now}. */
    void update(String node, long medianAge, long now) {
        Heard heard = ages.computeIfAbsent(node, n -> new Heard());
        heard.medianAge = medianAge;
        heard.at = now;
    }

    /** A node's figures, written by the one task that reads its partition, read by any. */
    private static final class Heard {
        volatile long medianAge;
        volatile long at;
    }

    /**
     * How far ahead of the wall clock the node least ahead is (its samples' median lead), or 0 when some node's
     * samples are not ahead of it.
     */
    long base(long now) {
        recompute(now);
        return base;
    }

    /** Whether the wall clock is a reference: some node heard from lately is within the bound of it or behind. */
    boolean trusted(long now) {
        return base(now) <= boundMs;
    }

    /**
     * The lower median of the nodes' median ages (those heard from lately): what a node's age is when the instance
     * reads its partitions up to date, as most nodes' clocks are right. {@link Long#MAX_VALUE} when none.
     */
    long lowerMedianAge(long now) {
        recompute(now);
        return lowerMedianAge;
    }

    private void recompute(long now) {
        if (!stale(now)) {
            return;
        }
        synchronized (this) {
            if (stale(now)) {
                compute(now);
            }
        }
    }

    private boolean stale(long now) {
        long at = computedAt;
        return at == Long.MIN_VALUE || now - at >= RECOMPUTE_MS || now < at;
    }

    private void compute(long now) {
        long[] fresh = new long[ages.size()];
        int n = 0;
        for (Heard heard : ages.values()) {
            if (now - heard.at <= FRESH_MS && n < fresh.length) {
                fresh[n++] = heard.medianAge;
            }
        }
        Arrays.sort(fresh, 0, n);
        // the least-ahead node's lead is minus the largest age
        base = n == 0 ? 0 : Math.max(0, -fresh[n - 1]);
        lowerMedianAge = n == 0 ? Long.MAX_VALUE : fresh[(n - 1) / 2];
        computedAt = now;
    }
}
