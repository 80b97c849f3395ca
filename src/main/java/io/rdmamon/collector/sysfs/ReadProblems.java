package io.rdmamon.collector.sysfs;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.support.LogLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Where the sysfs sources report what they could not read. Every error is counted on
 * {@code rdmamon.collector.read.errors{device}}; the log gets each distinct problem once, then at most once every
 * {@link #RELOG_PERIOD} with the number of repeats, because a broken file stays broken on every pass and a line per
 * second would drown the log.
 */
public final class ReadProblems {
    public static final String READ_ERRORS_METRIC = "rdmamon.collector.read.errors";
    static final Duration RELOG_PERIOD = Duration.ofMinutes(10);
    private static final Logger log = LoggerFactory.getLogger(ReadProblems.class);

    private final MeterRegistry registry;
    private final Map<String, Counter> errorsByDevice = new HashMap<>();
    private final LogLimiter logLimiter = new LogLimiter(RELOG_PERIOD);

    public ReadProblems(MeterRegistry registry) {
        this.registry = registry;
    }

    /** A file that exists but could not be read or parsed: counted for the device, logged with the path. */
    public synchronized void error(String device, Path file, String problem) {
        errorsByDevice.computeIfAbsent(device, d -> Counter.builder(READ_ERRORS_METRIC)
                .description("sysfs files that could not be read or parsed (the value is reported as unknown)")
                .tag("device", d)
                .register(registry)).increment();
        long suppressed = logLimiter.admit(file + "|" + problem);
        if (suppressed != LogLimiter.SUPPRESS) {
            log.warn("{}: {} (value unknown){}", file, problem, LogLimiter.suffix(suppressed));
        }
    }

    /** Something an operator should hear about once but which is no error (a driver without PMA, a filter). */
    public void note(String key, String message) {
        long suppressed = logLimiter.admit(key);
        if (suppressed != LogLimiter.SUPPRESS) {
            log.info("{}{}", message, LogLimiter.suffix(suppressed));
        }
    }

    /** How many times this device's files failed so far (what the Micrometer counter shows). */
    public synchronized double errorCount(String device) {
        Counter counter = errorsByDevice.get(device);
        return counter == null ? 0 : counter.count();
    }
}
