package io.rdmamon.collector.sysfs;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Where the sysfs sources report what they could not read. Every error is counted on
 * {@code rdmamon.collector.read.errors{device}}; the log gets each distinct problem once, then at most once every
 * {@link #RELOG_INTERVAL_NANOS} with the number of repeats, because a broken file stays broken on every pass and a
 * line per second would drown the log.
 */
public final class ReadProblems {
    public static final String READ_ERRORS_METRIC = "rdmamon.collector.read.errors";
    static final long RELOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(10);
    /** Bounds the memory of what was logged; a tree with more distinct problems than this is hopeless anyway. */
    private static final int MAX_REMEMBERED = 4096;
    private static final Logger log = LoggerFactory.getLogger(ReadProblems.class);

    private final MeterRegistry registry;
    private final Map<String, Counter> errorsByDevice = new HashMap<>();
    private final Map<String, Repeats> logged = new HashMap<>();

    public ReadProblems(MeterRegistry registry) {
        this.registry = registry;
    }

    /** A file that exists but could not be read or parsed: counted for the device, logged with the path. */
    public synchronized void error(String device, Path file, String problem) {
        errorsByDevice.computeIfAbsent(device, d -> Counter.builder(READ_ERRORS_METRIC)
                .description("sysfs files that could not be read or parsed (the value is reported as unknown)")
                .tag("device", d)
                .register(registry)).increment();
        String key = file + "|" + problem;
        long suppressed = dueForLog(key);
        if (suppressed >= 0) {
            log.warn("{}: {} (value unknown){}", file, problem, repeats(suppressed));
        }
    }

    /** Something an operator should hear about once but which is no error (a driver without PMA, a filter). */
    public synchronized void note(String key, String message) {
        long suppressed = dueForLog(key);
        if (suppressed >= 0) {
            log.info("{}{}", message, repeats(suppressed));
        }
    }

    /** How many times this device's files failed so far (what the Micrometer counter shows). */
    public synchronized double errorCount(String device) {
        Counter counter = errorsByDevice.get(device);
        return counter == null ? 0 : counter.count();
    }

    /** -1 to stay quiet, otherwise how many occurrences were swallowed since the key was last logged. */
    private long dueForLog(String key) {
        long now = System.nanoTime();
        Repeats repeats = logged.get(key);
        if (repeats == null) {
            if (logged.size() >= MAX_REMEMBERED) {
                logged.clear();
            }
            logged.put(key, new Repeats(now));
            return 0;
        }
        if (now - repeats.loggedAtNanos >= RELOG_INTERVAL_NANOS) {
            long swallowed = repeats.swallowed;
            repeats.loggedAtNanos = now;
            repeats.swallowed = 0;
            return swallowed;
        }
        repeats.swallowed++;
        return -1;
    }

    private static String repeats(long suppressed) {
        return suppressed == 0 ? "" : " [" + suppressed + " more times since last logged]";
    }

    private static final class Repeats {
        long loggedAtNanos;
        long swallowed;

        Repeats(long loggedAtNanos) {
            this.loggedAtNanos = loggedAtNanos;
        }
    }
}
