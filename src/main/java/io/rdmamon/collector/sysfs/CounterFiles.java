package io.rdmamon.collector.sysfs;

import io.rdmamon.model.CounterClass;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The counter files of one folder as a scan listed them, and what a pass needs to know of each name without looking it
 * up: its path, its {@link CounterClass} ({@code null} for traffic and informational counters) and the value at which
 * it is saturated. A pass reads the files into a {@link Counters} indexed like {@link #names}; the arrays are shared by
 * every reading until the next scan and never changed.
 */
final class CounterFiles {
    static final CounterFiles NONE = new CounterFiles(new String[0], new SysfsFiles.Attribute[0], null,
            CounterFolder.COUNTERS);
    /** In {@code hw_counters/}: how long the kernel caches the values, in ms; no counter. */
    static final String LIFESPAN = "lifespan";

    final String[] names;
    final SysfsFiles.Attribute[] files;
    final CounterClass[] classes;
    final long[] saturated;
    /** hw_counters' {@code lifespan} file, or {@code null} */
    final SysfsFiles.Attribute lifespan;
    private final Map<String, Integer> index;

    private CounterFiles(String[] names, SysfsFiles.Attribute[] files, SysfsFiles.Attribute lifespan,
                         CounterFolder folder) {
        this.names = names;
        this.files = files;
        this.lifespan = lifespan;
        this.classes = new CounterClass[names.length];
        this.saturated = new long[names.length];
        this.index = new HashMap<>(names.length * 2);
        for (int i = 0; i < names.length; i++) {
            classes[i] = CounterClass.of(names[i]).orElse(null);
            saturated[i] = folder.saturatedValue(names[i]);
            index.put(names[i], i);
        }
    }

    /** The files of a folder, sorted by name; hw_counters' {@code lifespan} is kept apart. */
    static CounterFiles of(CounterFolder folder, Path dir) {
        String[] names = SysfsFiles.list(dir);
        SysfsFiles.Attribute lifespan = null;
        if (folder == CounterFolder.HW_COUNTERS && Arrays.binarySearch(names, LIFESPAN) >= 0) {
            lifespan = new SysfsFiles.Attribute(dir.resolve(LIFESPAN));
            names = Arrays.stream(names).filter(name -> !name.equals(LIFESPAN)).toArray(String[]::new);
        }
        if (names.length == 0 && lifespan == null) {
            return NONE;
        }
        SysfsFiles.Attribute[] files = new SysfsFiles.Attribute[names.length];
        for (int i = 0; i < names.length; i++) {
            files[i] = new SysfsFiles.Attribute(dir.resolve(names[i]));
        }
        return new CounterFiles(names, files, lifespan, folder);
    }

    /** The index of a counter in this folder, or -1. */
    int indexOf(String name) {
        Integer i = index.get(name);
        return i == null ? -1 : i;
    }

    /** Reads every file once; a value that cannot be read is unknown (see {@link SysfsFiles}). */
    Counters read(String device, SysfsFiles reader) {
        long[] values = new long[names.length];
        boolean[] known = new boolean[names.length];
        for (int i = 0; i < names.length; i++) {
            if (reader.readCounterValue(device, files[i])) {
                values[i] = reader.counterValue();
                known[i] = true;
            }
        }
        return new Counters(this, values, known);
    }
}
