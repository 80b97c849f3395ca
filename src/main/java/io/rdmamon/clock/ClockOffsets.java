package io.rdmamon.clock;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Each node's clock offset, in event time, and the correction its samples get.
 *
 * <p>Every judgement of the stream app runs in event time, and event time is each collector's own clock: one node
 * ahead by 30 s pushes time ahead for everyone (its peers look silent, a job's stall shows 30 s late), one behind puts
 * its traffic in its peers' past (a straggler). A node off by more than the bound is judged in corrected time
 * ({@code ts − offset}) while it stays off by more than half the bound; off by more than the limit (the contract's 5
 * minutes) it keeps its own times, as a clock that far off is more likely a replay or a unit mistake than a drifting
 * clock.
 *
 * <p>Two references. The other nodes of the partition: each sample's {@code ts} minus the median of the other nodes'
 * latest sample times (as corrected), the median of the node's last {@value #WINDOW} such differences. And, live, the
 * app's own wall clock ({@link WallClockReference}, shared by the instance's tasks), which a partition of one or two
 * nodes needs: there the peers cannot outvote the node that is off. How the two combine: {@link #wallOffset}.
 *
 * <p>Guards: the other nodes are those heard from in the last {@value #FRESH_MS} ms of wall time (a silent node is no
 * reference); a node's offset changes only while its recent differences (and ages) agree within
 * {@value #STEADY_SPREAD_MS} ms (a backlog flushed at once, or a clock being stepped, gives figures that do not, and
 * keeps the last offset); and a node is judged only while its samples come at the pace of time ({@link
 * NodeClock#paced}): a backlog read faster than time passes (after a restart, an outage, or a relay flushing node by
 * node) makes every node of it look minutes behind its partition peers and the wall clock, which is no clock at all.
 * Without a wall clock to trust (a replay, or an app whose clock is behind every node's), the
 * cluster's time is that of its majority: when, after a change, more than half the nodes carry a correction (the first
 * node heard from, which everyone was compared with at the start, was the wrong one), every correction moves by their
 * median; with two nodes there is no majority, and the first heard from sets the time.
 *
 * <p>Not thread-safe: one per stream task (the nodes of its partitions), and one per replay.
 */
public final class ClockOffsets {
    /** A node's differences kept: about 8 s of a node with two ports and a host interface sampled each second. */
    static final int WINDOW = 24;
    /** Most a node's kept differences may spread and still be one steady offset rather than a backlog. */
    static final long STEADY_SPREAD_MS = 3_000;
    /** A node not heard from for this long (wall clock) is left out of the others' reference. */
    static final long FRESH_MS = 10_000;
    /** Up to this many nodes, each sample is compared with the others' times as they are at that moment. */
    static final int EXACT_UP_TO = 16;
    /** A node's pace of sample time against wall time is measured over this much wall time. */
    static final long PACE_WINDOW_MS = 2_000;
    /**
     * Most a node's sample time may run ahead of twice the wall time passed and still be live: the arrival jitter of a
     * pass or two. A backlog runs minutes of sample time through seconds.
     */
    static final long PACE_SLACK_MS = 2_000;

    /** Where a node's clock stands. */
    public enum State {
        /** Within the bound of the others', or not judged yet: its own times are used. */
        IN_STEP,
        /** Off by more than the bound: its samples are judged in corrected time. */
        CORRECTED,
        /** Off by more than the limit: its own times are used, as before this class existed. */
        BEYOND_LIMIT
    }

    /** Told when a node's clock changes {@link State}, with its offset and how many nodes it was compared with. */
    public interface Listener {
        void changed(String node, State before, State after, long offsetMs, int peers);
    }

    /** Samples of a node that arrive old before it may be judged behind against the wall clock (not a late one). */
    static final int MIN_BEHIND_SAMPLES = 3;
    /** A node alone in its partition is judged behind the others only after its samples' age held this long. */
    static final long LONE_STEADY_MS = 20_000;
    /** How much a node's age may wander and still count as held ({@link #LONE_STEADY_MS}). */
    static final long LONE_DRIFT_MS = 1_000;

    private final long boundMs;
    private final long limitMs;
    private final WallClockReference wall;
    private final Listener listener;
    private final Map<String, NodeClock> nodes = new HashMap<>();
    private long[] scratch = new long[16];
    /** The reference the last samples were compared with, how many nodes made it, samples since. */
    private long referenceMs;
    private int referencePeers;
    private int sinceReference;

    /**
     * @param boundMs an offset beyond this is corrected ({@code streams.clock.skew.max.ms})
     * @param limitMs an offset beyond this is left alone ({@code streams.contract.max.future.ms})
     */
    public ClockOffsets(long boundMs, long limitMs, Listener listener) {
        this(boundMs, limitMs, null, listener);
    }

    /**
     * @param wall the app's wall clock as a reference across partitions ({@link WallClockReference}, shared by the
     *             instance's tasks), or null to compare nodes with their partition peers only (a replay, whose wall
     *             clock is made of the samples' own times)
     */
    public ClockOffsets(long boundMs, long limitMs, WallClockReference wall, Listener listener) {
        this.boundMs = boundMs;
        this.limitMs = limitMs;
        this.wall = wall;
        this.listener = listener;
    }

    /** One node's clock as seen so far. */
    private static final class NodeClock {
        final String node;
        /** Its samples' differences against its partition peers' reference. */
        final Recent differences = new Recent();
        /** Its samples' ages on arrival (wall clock − ts), with a wall reference. */
        final Recent ages = new Recent();
        long minAge;
        long medianAge;
        /** The age it has held since {@link #heldSince} (within {@link #LONE_DRIFT_MS}). */
        long heldAge;
        long heldSince = Long.MIN_VALUE;
        /** At its last sample: fresh and not from the future, so a partition peer may be measured against it. */
        boolean anchored;
        /** The node's latest sample time, as it sent it. */
        long latestTs = Long.MIN_VALUE;
        long arrivedAt;
        /** Its offset, as last judged (ms, positive: ahead), and what its samples' times lose. */
        long offsetMs;
        long correctionMs;
        State state = State.IN_STEP;
        /** Where the node's current pace window began: a sample time and its arrival. */
        long paceTs;
        long paceWall = Long.MIN_VALUE;
        boolean live;

        NodeClock(String node) {
            this.node = node;
        }

        /**
         * Whether the node's samples come at the pace of time: over the last {@value #PACE_WINDOW_MS} ms of wall time
         * its sample time advanced by no more than twice that (plus {@value #PACE_SLACK_MS} ms), and so far in the
         * current window too. A node's first window, or one after a burst, is not live yet.
         */
        boolean paced(long ts, long now) {
            if (paceWall == Long.MIN_VALUE || ts - paceTs > 2 * (now - paceWall) + PACE_SLACK_MS) {
                live = false;
                paceTs = ts;
                paceWall = now;
            } else if (now - paceWall >= PACE_WINDOW_MS) {
                live = true;
                paceTs = ts;
                paceWall = now;
            }
            return live;
        }

        long correctedLatest() {
            return latestTs - correctionMs;
        }

    }

    /** The last {@value #WINDOW} values of one measure of a node. */
    private static final class Recent {
        private final long[] values = new long[WINDOW];
        private int count;
        private int next;

        void add(long value) {
            values[next] = value;
            next = (next + 1) % WINDOW;
            count = Math.min(count + 1, WINDOW);
        }

        boolean isEmpty() {
            return count == 0;
        }

        /** A sorted copy of the values kept. */
        long[] sorted() {
            long[] copy = Arrays.copyOf(values, count);
            Arrays.sort(copy);
            return copy;
        }

        void shift(long ms) {
            for (int i = 0; i < count; i++) {
                values[i] -= ms;
            }
        }
    }

    /**
     * A sample of {@code node} with its own time {@code ts}, arriving at wall time {@code now}: returns the
     * milliseconds to take off its time (0 for a node in step).
     */
    public long observe(String node, long ts, long now) {
        NodeClock clock = nodes.computeIfAbsent(node, NodeClock::new);
        int peers = reference(clock, now);
        if (peers > 0) {
            clock.differences.add(ts - referenceMs);
        }
        if (wall != null) {
            clock.ages.add(now - ts);
        }
        Long offset = !clock.paced(ts, now) ? null
                : wall == null ? peerOffset(clock, peers, 1) : wallOffset(clock, now, peers);
        if (offset != null) {
            judge(clock, offset, now, peers);
        }
        clock.latestTs = Math.max(clock.latestTs, ts);
        clock.arrivedAt = now;
        return clock.correctionMs;
    }

    /** What the node's samples' times lose now: 0 for a node in step or not seen. */
    public long correction(String node) {
        NodeClock clock = node == null ? null : nodes.get(node);
        return clock == null ? 0 : clock.correctionMs;
    }

    /** The node's offset as last judged (ms, positive: ahead of the others); 0 when unknown. */
    public long offsetMs(String node) {
        NodeClock clock = nodes.get(node);
        return clock == null ? 0 : clock.offsetMs;
    }

    public State state(String node) {
        NodeClock clock = nodes.get(node);
        return clock == null ? State.IN_STEP : clock.state;
    }

    /**
     * Sets {@link #referenceMs} to the median of the other fresh nodes' corrected latest times; returns how many
     * there are. Exact up to {@value #EXACT_UP_TO} nodes; beyond, the median of all of them, the node's own time
     * included (one of many), computed again after an eighth of the nodes' samples: a scan and sort of every node at
     * every sample would cost more than the rest of the node side at 1,000 nodes a partition.
     */
    private int reference(NodeClock self, long now) {
        boolean exact = nodes.size() <= EXACT_UP_TO;
        if (!exact && sinceReference++ < nodes.size() / 8) {
            return referencePeers;
        }
        sinceReference = 0;
        referencePeers = collectPeers(exact ? self : null, now);
        referenceMs = referencePeers > 0 ? median(scratch, referencePeers) : 0;
        return referencePeers;
    }

    /** The other fresh nodes' corrected latest times into {@link #scratch}; returns how many. */
    private int collectPeers(NodeClock self, long now) {
        if (scratch.length < nodes.size()) {
            scratch = new long[nodes.size() * 2];
        }
        int n = 0;
        for (NodeClock other : nodes.values()) {
            if (other != self && other.latestTs != Long.MIN_VALUE && now - other.arrivedAt <= FRESH_MS) {
                scratch[n++] = other.correctedLatest();
            }
        }
        return n;
    }

    /**
     * The median of the node's last differences against its partition peers' times, when it has at least
     * {@code minPeers} of them and its differences agree; null otherwise.
     */
    private Long peerOffset(NodeClock clock, int peers, int minPeers) {
        if (peers < minPeers || clock.differences.isEmpty()) {
            return null;
        }
        long[] recent = clock.differences.sorted();
        return recent[recent.length - 1] - recent[0] > STEADY_SPREAD_MS ? null : median(recent, recent.length);
    }

    /**
     * The node's offset with the app's wall clock as the reference across partitions ({@link WallClockReference}),
     * its partition peers where they are a majority; null when nothing sound can be said yet. In order:
     * <ol>
     *   <li>samples from the future: ahead, by their lead (or the peers' figure if they agree);
     *   <li>samples that arrive fresh, and not from the future: in step, whatever the peers say (they may be the ones
     *       off; a node ahead by just as much as its partition is read late is missed until that lag is gone);
     *   <li>samples that arrive old, and two or more peers: their figure (the whole partition read late: in step;
     *       the others fresh: behind);
     *   <li>one peer, itself in step with the wall clock: behind by the difference of their ages (one log: the
     *       partition's lag is the same for both);
     *   <li>alone (or with a peer not in step): behind by its age less the usual age of the instance's nodes, once its
     *       age has held for {@value #LONE_STEADY_MS} ms while most nodes arrive fresh (a partition catching up
     *       after a restart is read faster than the time passes: its age falls, and never holds).
     * </ol>
     * While the wall clock is no reference (every node ahead of it), only a majority of peers counts.
     */
    private Long wallOffset(NodeClock clock, long now, int peers) {
        long[] ages = clock.ages.sorted();
        clock.anchored = false;
        if (ages[ages.length - 1] - ages[0] > STEADY_SPREAD_MS) {
            return null;
        }
        clock.minAge = ages[0];
        clock.medianAge = median(ages, ages.length);
        if (clock.heldSince == Long.MIN_VALUE || Math.abs(clock.medianAge - clock.heldAge) > LONE_DRIFT_MS) {
            clock.heldAge = clock.medianAge;
            clock.heldSince = now;
        }
        wall.update(clock.node, clock.medianAge, now);
        Long peer = peerOffset(clock, peers, 2);
        if (!wall.trusted(now)) {
            return peer;
        }
        long lead = -clock.medianAge - wall.base(now);
        clock.anchored = clock.minAge <= boundMs && lead <= boundMs;
        if (lead > boundMs) {
            return peer != null && peer > boundMs ? peer : lead;
        }
        if (clock.anchored) {
            return 0L;
        }
        if (peer != null) {
            return peer;
        }
        if (ages.length < MIN_BEHIND_SAMPLES) {
            return null;
        }
        NodeClock partner = peers == 1 ? freshPeer(clock, now) : null;
        if (partner != null && partner.anchored) {
            return partner.medianAge - clock.medianAge;
        }
        long usual = wall.lowerMedianAge(now);
        return now - clock.heldSince >= LONE_STEADY_MS && usual <= boundMs ? usual - clock.medianAge : null;
    }

    private NodeClock freshPeer(NodeClock self, long now) {
        for (NodeClock other : nodes.values()) {
            if (other != self && other.latestTs != Long.MIN_VALUE && now - other.arrivedAt <= FRESH_MS) {
                return other;
            }
        }
        return null;
    }

    private void judge(NodeClock clock, long offset, long now, int peers) {
        clock.offsetMs = offset;
        long size = Math.abs(offset);
        State state;
        long correction;
        if (size > limitMs) {
            state = State.BEYOND_LIMIT;
            correction = 0;
        } else if (size > boundMs || clock.state == State.CORRECTED && size > boundMs / 2) {
            state = State.CORRECTED;
            // a steady offset moves its correction only by more than half the bound: the samples of one port stay
            // in order instead of wandering with the jitter of arrival
            correction = Math.abs(offset - clock.correctionMs) > boundMs / 2 ? offset : clock.correctionMs;
        } else {
            state = State.IN_STEP;
            correction = 0;
        }
        if (correction != clock.correctionMs) {
            clock.correctionMs = correction;
            // with the wall clock as reference a healthy node is not judged behind: no minority sets the time
            if ((wall == null || !wall.trusted(now)) && followMajority(now)) {
                return;
            }
        }
        setState(clock, state, peers);
    }

    private void setState(NodeClock clock, State state, int peers) {
        State before = clock.state;
        clock.state = state;
        if (before != state) {
            listener.changed(clock.node, before, state, clock.offsetMs, peers);
        }
    }

    /**
     * When more than half the fresh nodes carry a correction, the cluster's time was set by a minority (the first
     * node heard from): every correction moves by their median. Returns whether they moved.
     */
    private boolean followMajority(long now) {
        int fresh = 0;
        int corrected = 0;
        long[] corrections = new long[nodes.size()];
        for (NodeClock c : nodes.values()) {
            if (now - c.arrivedAt <= FRESH_MS) {
                corrections[fresh++] = c.correctionMs;
                corrected += c.correctionMs != 0 ? 1 : 0;
            }
        }
        if (fresh < 3 || 2 * corrected <= fresh) {
            return false;
        }
        Arrays.sort(corrections, 0, fresh);
        long shift = corrections[(fresh - 1) / 2];
        if (Math.abs(shift) <= boundMs) {
            return false;
        }
        for (NodeClock c : nodes.values()) {
            c.correctionMs -= shift;
            c.differences.shift(shift);
            c.offsetMs -= shift;
            setState(c, Math.abs(c.offsetMs) > limitMs ? State.BEYOND_LIMIT
                    : c.correctionMs != 0 ? State.CORRECTED : State.IN_STEP, fresh - 1);
        }
        return true;
    }

    /** The median of the first {@code n} values (sorted in place). */
    private static long median(long[] values, int n) {
        Arrays.sort(values, 0, n);
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }
}
