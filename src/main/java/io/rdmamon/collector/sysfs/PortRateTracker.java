package io.rdmamon.collector.sysfs;

import io.rdmamon.model.CounterClass;
import io.rdmamon.model.PortSample;

import java.util.Map;
import java.util.TreeMap;

/**
 * One port's state across passes: turns consecutive {@link PortReading}s into {@link PortSample}s. The interval comes
 * from the monotonic clock, so a wall-clock step never makes a rate. The first reading (and one after the port
 * reappeared) gives {@code intervalMs} 0, {@code null} rates and no errors. Rates and error increments are
 * {@code null}/omitted whenever the counters cannot tell the truth: saturated, reset, unknown in either reading.
 */
public final class PortRateTracker {
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
        Map<String, Long> errors = Map.of();
        for (CounterFolder folder : FOLDERS) {
            Counters own = current.folder(folder);
            for (int i = 0; i < own.size(); i++) {
                errors = addIncrement(errors, before, folder, own, i);
            }
            Counters device = current.deviceHw();
            for (int i = 0; folder == CounterFolder.HW_COUNTERS && i < device.size(); i++) {
                // the port's own counter of that name wins (see PortReading#holding)
                if (own.knownIndex(device.files.names[i]) < 0) {
                    errors = addIncrement(errors, before, folder, device, i);
                }
            }
        }
        return errors;
    }

    /** Adds counter {@code i}'s increment when it is an error counter, known in both readings, true and not 0. */
    private static Map<String, Long> addIncrement(Map<String, Long> errors, PortReading before, CounterFolder folder,
                                                  Counters now, int i) {
        if (now.files.classes[i] == null || !now.known(i)) {
            return errors;
        }
        String name = now.files.names[i];
        Counters then = before.holding(folder, name);
        if (then == null) {
            return errors;
        }
        long previous = then.valueOf(name);
        long current = now.value(i);
        if (current == previous || !Increments.isTrue(previous, current, now.files.saturated[i])) {
            return errors;
        }
        Map<String, Long> found = errors.isEmpty() ? new TreeMap<>() : errors;
        found.putIfAbsent(name, current - previous);
        return found;
    }

    static Map<String, Long> errorClasses(Map<String, Long> errors) {
        if (errors.isEmpty()) {
            return Map.of();
        }
        Map<String, Long> classes = new TreeMap<>();
        errors.forEach((name, increment) -> CounterClass.of(name)
                .ifPresent(counterClass -> classes.merge(counterClass.wireName(), increment, Long::sum)));
        return classes;
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
