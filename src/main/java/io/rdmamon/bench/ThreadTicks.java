package io.rdmamon.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * CPU ticks (user + system, USER_HZ) of a process's threads from {@code /proc/PID/task/*}/stat, summed per thread
 * name with digits blanked ({@code GC Thread#1} and {@code GC Thread#0} count together) except after a capital
 * ({@code C1 CompilerThre} and {@code C2 CompilerThre} stay apart): where a process's CPU goes, without attaching
 * anything to it.
 */
record ThreadTicks(Map<String, Long> byName) {
    /** USER_HZ: the unit of utime and stime in /proc; 100 on every Linux architecture Java runs on. */
    static final double PER_SECOND = 100.0;

    static ThreadTicks of(long pid) throws IOException {
        Map<String, Long> ticks = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException e) {
                    continue; // the thread ended while listed
                }
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
                        .replaceAll("(?<![A-Z])\\d+", "#");
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                ticks.merge(name, Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum);
            }
        }
        return new ThreadTicks(ticks);
    }

    /** Ticks per name since {@code before}; threads that ended in between are not counted. */
    Map<String, Long> since(ThreadTicks before) {
        Map<String, Long> delta = new HashMap<>();
        byName.forEach((name, now) -> delta.put(name, now - before.byName.getOrDefault(name, 0L)));
        return delta;
    }

    /** {@code ticks} as CPU seconds per name, the busiest thread first. */
    static Map<String, Double> secondsLargestFirst(Map<String, Long> ticks) {
        Map<String, Double> sorted = new LinkedHashMap<>();
        ticks.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> sorted.put(e.getKey(), e.getValue() / PER_SECOND));
        return sorted;
    }
}
