package io.rdmamon.jobs;

import org.apache.kafka.streams.processor.api.Record;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;

/**
 * The samples a task judged without any job, kept for a while of wall time, per node in the order they were judged,
 * so that a job's hold reaching them late (its record crosses a repartition topic and a commit, the samples do not)
 * can still give them to the job: {@link NodeAssigner}. In memory, bounded by time and count: a restart, or a hold
 * later than the grace, leaves them unassigned, and {@link #lostSince} says so.
 */
final class UnheldSamples {
    private record Entry(String key, Record<String, NodeInput> record, long judgedAt) {
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

    void add(String node, String key, Record<String, NodeInput> record, long wallNow) {
        ArrayDeque<Entry> entries = byNode.computeIfAbsent(node, n -> new ArrayDeque<>());
        dropOld(entries, wallNow);
        if (size >= capacity && !entries.isEmpty()) {
            drop(entries);
        }
        if (size < capacity) {
            entries.addLast(new Entry(key, record, wallNow));
            size++;
        } else {
            droppedUpTo.merge(key, record.timestamp(), Math::max);
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
                if (e.key.equals(key) && e.record.timestamp() >= from) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Passes each kept sample of {@code nodes} to {@code assignment}; those it gives an assignment with a holder are no
     * longer kept and go to {@code judged} in time order (in the order judged on equal times), as the replay has them.
     */
    void rejudge(Collection<String> nodes, BiFunction<String, Long, Assignment> assignment,
                 BiConsumer<Record<String, NodeInput>, Assignment> judged) {
        List<Map.Entry<Record<String, NodeInput>, Assignment>> covered = new ArrayList<>();
        for (String node : nodes) {
            ArrayDeque<Entry> entries = byNode.get(node);
            if (entries == null) {
                continue;
            }
            for (Iterator<Entry> it = entries.iterator(); it.hasNext(); ) {
                Entry e = it.next();
                Assignment now = assignment.apply(e.key, e.record.timestamp());
                if (!now.isEmpty()) {
                    it.remove();
                    size--;
                    covered.add(Map.entry(e.record, now));
                }
            }
        }
        covered.sort(Comparator.comparingLong(e -> e.getKey().timestamp()));
        covered.forEach(e -> judged.accept(e.getKey(), e.getValue()));
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
        droppedUpTo.merge(e.key, e.record.timestamp(), Math::max);
    }
}
