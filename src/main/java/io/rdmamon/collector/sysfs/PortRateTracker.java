package io.rdmamon.collector.sysfs;

import io.rdmamon.model.CounterClass;
import io.rdmamon.model.PortSample;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One port's state across passes: turns consecutive {@link PortReading}s into {@link PortSample}s. The interval comes
 * from the monotonic clock, so a wall-clock step never makes a rate. The first reading (and one after the port
 * reappeared) gives {@code intervalMs} 0, {@code null} rates and no errors. Rates and error increments are
 * {@code null}/omitted whenever the counters cannot tell the truth: saturated, reset, unknown in either reading.
 */
public final class PortRateTracker {
    /** Counter names repeat every pass; classifying each once keeps lower-casing out of the hot path. */
    private static final Map<String, Optional<CounterClass>> CLASSES = new ConcurrentHashMap<>();
    private static final CounterFolder[] FOLDERS = CounterFolder.values();

    private final String node;
    private PortReading previous;
    private long previousNanos;

    public PortRateTracker(String node) {
        this.node = node;
    }

    public PortSample next(PortReading current, long wallMs, long monoNanos) {
        PortReading before = previous;
        long intervalNanos = before == null ? 0 : monoNanos - previousNanos;
        previous = current;
        previousNanos = monoNanos;
        if (before == null || intervalNanos <= 0) {
            return sample(current, wallMs, 0, null, null, null, null, Map.of());
        }
        return sample(current, wallMs, Increments.toMillis(intervalNanos),
                TrafficCounter.TX_BYTES.perSecond(before, current, intervalNanos),
                TrafficCounter.RX_BYTES.perSecond(before, current, intervalNanos),
                TrafficCounter.TX_PACKETS.perSecond(before, current, intervalNanos),
                TrafficCounter.RX_PACKETS.perSecond(before, current, intervalNanos),
                errorIncrements(before, current));
    }

    /** Non-zero increments of every classified counter whose increment is known, by file name, sorted. */
    static Map<String, Long> errorIncrements(PortReading before, PortReading current) {
        Map<String, Long> errors = new TreeMap<>();
        for (CounterFolder folder : FOLDERS) {
            Map<String, Long> earlier = before.folder(folder);
            for (Map.Entry<String, Long> entry : current.folder(folder).entrySet()) {
                String name = entry.getKey();
                if (classOf(name).isEmpty()) {
                    continue;
                }
                Long then = earlier.get(name);
                if (then == null) {
                    continue;
                }
                Long increment = Increments.increment(then, entry.getValue(), folder.saturatedValue(name));
                if (increment != null && increment != 0) {
                    errors.putIfAbsent(name, increment);
                }
            }
        }
        return errors;
    }

    static Map<String, Long> errorClasses(Map<String, Long> errors) {
        Map<String, Long> classes = new TreeMap<>();
        errors.forEach((name, increment) -> classOf(name)
                .ifPresent(counterClass -> classes.merge(counterClass.wireName(), increment, Long::sum)));
        return classes;
    }

    private static Optional<CounterClass> classOf(String name) {
        return CLASSES.computeIfAbsent(name, CounterClass::of);
    }

    private PortSample sample(PortReading reading, long wallMs, long intervalMs, Double txBytes, Double rxBytes,
                              Double txPackets, Double rxPackets, Map<String, Long> errors) {
        return new PortSample(PortSample.VERSION, node, reading.device(), reading.port(), wallMs, intervalMs,
                PortSample.SOURCE_SYSFS, name(reading.state()), name(reading.physState()), reading.linkLayer(),
                reading.rateBytesPerSec(), txBytes, rxBytes, txPackets, rxPackets, errors, errorClasses(errors));
    }

    private static String name(PortState state) {
        return state == null ? null : state.name();
    }
}
