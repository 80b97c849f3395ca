package io.rdmamon.collector.sysfs;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * One counter folder as one pass read it: a raw value per file of the folder's {@link CounterFiles}, by index, and
 * whether it is known (a missing file, {@code N/A (no PMA)}, an unreadable file or garbage leave it unknown — never 0).
 * Values are unsigned 64-bit. Primitive arrays, so that a pass neither boxes a value nor builds a map per counter.
 */
public final class Counters {
    static final Counters NONE = new Counters(CounterFiles.NONE, new long[0], new boolean[0]);

    final CounterFiles files;
    private final long[] values;
    private final boolean[] known;

    Counters(CounterFiles files, long[] values, boolean[] known) {
        this.files = files;
        this.values = values;
        this.known = known;
    }

    int size() {
        return values.length;
    }

    boolean known(int i) {
        return known[i];
    }

    long value(int i) {
        return values[i];
    }

    /** The index of a counter whose value is known, or -1. */
    int knownIndex(String name) {
        int i = files.indexOf(name);
        return i >= 0 && known[i] ? i : -1;
    }

    /** The raw value, or {@code null} when unknown or absent. */
    public Long get(String name) {
        int i = knownIndex(name);
        return i < 0 ? null : values[i];
    }

    /** The raw value of a counter known to be here (as {@link PortReading#holding} found it), unboxed. */
    long valueOf(String name) {
        return values[files.indexOf(name)];
    }

    /** The known values by name (for tests and diagnostics: a pass reads them by index). */
    public Map<String, Long> asMap() {
        Map<String, Long> map = new TreeMap<>();
        for (int i = 0; i < values.length; i++) {
            if (known[i]) {
                map.put(files.names[i], values[i]);
            }
        }
        return Collections.unmodifiableMap(map);
    }
}
