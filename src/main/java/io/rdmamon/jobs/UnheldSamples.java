package io.rdmamon.jobs;

import org.apache.kafka.streams.processor.api.Record;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The samples a task judged without any job, kept for a while of wall time, per node in the order they were judged,
 * so that a job's hold reaching them late (its record crosses a repartition topic and a commit, the samples do not)
 * can still give them to the job: {@link NodeAssigner}. In memory, bounded by time and count: a restart, or a hold
 * later than the grace, leaves them unassigned, and {@link #lostSince} says so.
 */
final class UnheldSamples {
    /**
     * A kept sample and the assignment keys it waits on: its own; a host sample also its interface's as a device (a
     * socket job's port, {@link SocketPorts}), which a hold of its own may cover later. Bit i of {@code pending}: key i
     * not given to a job yet.
     */
    private static final class Entry {
        final String[] keys;
        final Record<String, NodeInput> record;
        final long judgedAt;
        int pending;

        Entry(String[] keys, Record<String, NodeInput> record, long judgedAt) {
            this.keys = keys;
            this.record = record;
            this.judgedAt = judgedAt;
            this.pending = (1 << keys.length) - 1;
        }
    }

    /**
     * What a late hold covers: the sample, judged for its own key ({@code own}) or its socket's; {@code passEnd}: the
     * last of its node's pass (its node's covered samples of its time) in this call.
     */
    interface Judged {
        void accept(Record<String, NodeInput> record, Assignment assignment, boolean own, boolean passEnd);
    }

    private record Covered(String node, Record<String, NodeInput> record, Assignment assignment, boolean own) {
    }

    private final long graceMs;
    private final int capacity;
    private final Map<String, ArrayDeque<Entry>> byNode = new HashMap<>();
    /** Per assignment key, the newest sample time that went unheld for good (dropped here). */
    private final Map<String, Long> droppedUpTo = new HashMap<>();
    private int size;

    UnheldSamples(long graceMs, int capacity) {
        this.graceMs = graceMs;
        this.capacity = capacity;
    }

    /** {@code keys}: the assignment keys the sample was judged without a job for, its own first. */
    void add(String node, Record<String, NodeInput> record, long wallNow, String... keys) {
        ArrayDeque<Entry> entries = byNode.computeIfAbsent(node, n -> new ArrayDeque<>());
        dropOld(entries, wallNow);
        if (size >= capacity && !entries.isEmpty()) {
            drop(entries);
        }
        if (size < capacity) {
            entries.addLast(new Entry(keys, record, wallNow));
            size++;
        } else {
            for (String key : keys) {
                droppedUpTo.merge(key, record.timestamp(), Math::max);
            }
        }
    }

    /** Whether samples of {@code key} from {@code from} on were judged without a job and are no longer kept. */
    boolean lostSince(String key, long from) {
        Long dropped = droppedUpTo.get(key);
        return dropped != null && dropped >= from;
    }

    /** Whether {@code node} has samples of {@code key} from {@code from} on kept. */
    boolean holds(String node, String key, long from) {
        ArrayDeque<Entry> entries = byNode.get(node);
        if (entries != null) {
            for (Entry e : entries) {
                if (e.record.timestamp() >= from) {
                    for (int i = 0; i < e.keys.length; i++) {
                        if ((e.pending & 1 << i) != 0 && e.keys[i].equals(key)) {
                            return true;
                        }
                    }
                }
            }
        }
        return false;
    }

    /**
     * Passes each kept sample of {@code nodes} to {@code assignment}, once per key it waits on; each key given an
     * assignment with a holder goes to {@code judged}, in time order (in the order judged on equal times, a sample's
     * own key before its socket's), as the replay has them. A node's samples of one time come one right after
     * another (nodes in {@code nodes}' order), the last marked: a node pass. A sample is no longer kept once all its
     * keys went.
     */
    void rejudge(Collection<String> nodes, BiFunction<String, Long, Assignment> assignment, Judged judged) {
        List<Covered> covered = new ArrayList<>();
        for (String node : nodes) {
            ArrayDeque<Entry> entries = byNode.get(node);
            if (entries == null) {
                continue;
            }
            for (Iterator<Entry> it = entries.iterator(); it.hasNext(); ) {
                Entry e = it.next();
                for (int i = 0; i < e.keys.length; i++) {
                    if ((e.pending & 1 << i) == 0) {
                        continue;
                    }
                    Assignment now = assignment.apply(e.keys[i], e.record.timestamp());
                    if (!now.isEmpty()) {
                        e.pending &= ~(1 << i);
                        covered.add(new Covered(node, e.record, now, i == 0));
                    }
                }
                if (e.pending == 0) {
                    it.remove();
                    size--;
                }
            }
        }
        covered.sort(Comparator.comparingLong(c -> c.record().timestamp()));
        // a node's samples of one sampling interval are one pass, whatever their times (NodeTickBatcher): passes in
        // the order of their first samples, on equal times nodes in the order above, each pass's samples together
        Map<String, Integer> order = new HashMap<>();
        nodes.forEach(n -> order.putIfAbsent(n, order.size()));
        Map<String, Long> open = new HashMap<>();
        Map<Covered, Long> passOf = new IdentityHashMap<>();
        for (Covered c : covered) {
            long ts = c.record().timestamp();
            NodeInput in = c.record().value();
            long within = Math.max(1, (in.port() != null ? in.port().intervalMs() : in.host().intervalMs()) / 2);
            Long start = open.get(c.node());
            if (start == null || ts - start >= within) {
                start = ts;
                open.put(c.node(), start);
            }
            passOf.put(c, start);
        }
        covered.sort(Comparator.comparingLong((Covered c) -> passOf.get(c)).thenComparing(c -> order.get(c.node())));
        for (int i = 0; i < covered.size(); i++) {
            Covered c = covered.get(i);
            Covered next = i + 1 < covered.size() ? covered.get(i + 1) : null;
            boolean passEnd = next == null || !passOf.get(next).equals(passOf.get(c)) || !next.node().equals(c.node());
            judged.accept(c.record(), c.assignment(), c.own(), passEnd);
        }
    }

    /** Drops what is older than the grace everywhere: nodes that send nothing more keep nothing. */
    void dropOld(long wallNow) {
        for (Iterator<ArrayDeque<Entry>> it = byNode.values().iterator(); it.hasNext(); ) {
            ArrayDeque<Entry> entries = it.next();
            dropOld(entries, wallNow);
            if (entries.isEmpty()) {
                it.remove();
            }
        }
    }

    void clear() {
        byNode.clear();
        droppedUpTo.clear();
        size = 0;
    }

    private void dropOld(ArrayDeque<Entry> entries, long wallNow) {
        while (!entries.isEmpty() && wallNow - entries.peekFirst().judgedAt > graceMs) {
            drop(entries);
        }
    }

    private void drop(ArrayDeque<Entry> entries) {
        Entry e = entries.pollFirst();
        size--;
        for (int i = 0; i < e.keys.length; i++) {
            if ((e.pending & 1 << i) != 0) {
                droppedUpTo.merge(e.keys[i], e.record.timestamp(), Math::max);
            }
        }
    }
}
