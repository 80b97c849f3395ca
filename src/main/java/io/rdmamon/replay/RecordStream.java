package io.rdmamon.replay;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.function.ToLongFunction;

/** The replay's input records in piping order; {@link #next()} returns null at the end. */
interface RecordStream {

    ReplayRecord next();

    /**
     * Each source's own order kept; across sources the head with the smallest timestamp goes first (ties: the source
     * given first, so job records precede samples of the same millisecond).
     */
    static RecordStream merged(List<JsonLinesSource> sources) {
        return merged(sources, ReplayRecord::timestamp);
    }

    /** As {@link #merged(List)}, the heads compared by {@code time}: a sample's time as corrected for its node's clock. */
    static RecordStream merged(List<JsonLinesSource> sources, ToLongFunction<ReplayRecord> time) {
        return () -> {
            JsonLinesSource best = null;
            for (JsonLinesSource source : sources) {
                ReplayRecord head = source.peek();
                if (head != null && (best == null || time.applyAsLong(head) < time.applyAsLong(best.peek()))) {
                    best = source;
                }
            }
            return best == null ? null : best.take();
        };
    }

    /** Everything sorted by timestamp, then source, then line (stable). Reads all records into memory. */
    static RecordStream sorted(List<JsonLinesSource> sources) {
        List<ReplayRecord> all = new ArrayList<>();
        for (JsonLinesSource source : sources) {
            for (ReplayRecord r = source.take(); r != null; r = source.take()) {
                all.add(r);
            }
        }
        all.sort(Comparator.comparingLong(ReplayRecord::timestamp).thenComparingInt(ReplayRecord::sourceIndex)
                .thenComparingLong(ReplayRecord::line));
        Iterator<ReplayRecord> it = all.iterator();
        return () -> it.hasNext() ? it.next() : null;
    }
}
