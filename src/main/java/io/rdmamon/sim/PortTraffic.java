package io.rdmamon.sim;

import java.util.EnumMap;
import java.util.Map;

/**
 * What one port carried over one interval: byte and packet increments, error increments by kind, whether the link was
 * up at the interval's end, and its link rate then (null = nominal, unchanged by faults). Increments, so a live
 * simulator adds them to its sysfs counters and a recorder divides them by the interval.
 */
public record PortTraffic(long txBytes, long rxBytes, long txPackets, long rxPackets, Map<ErrorKind, Long> errors,
                          boolean linkUp, Long rateCapBytesPerSec) {

    public static final PortTraffic IDLE = new PortTraffic(0, 0, 0, 0, Map.of(), true, null);

    public PortTraffic {
        errors = errors == null || errors.isEmpty() ? Map.of() : Map.copyOf(errors);
    }

    /** Two jobs' traffic on one shared port: bytes add up; the link is up only if both see it up. */
    public PortTraffic plus(PortTraffic other) {
        Map<ErrorKind, Long> sum = new EnumMap<>(ErrorKind.class);
        sum.putAll(errors);
        other.errors.forEach((kind, n) -> sum.merge(kind, n, Long::sum));
        Long cap = rateCapBytesPerSec == null ? other.rateCapBytesPerSec
                : other.rateCapBytesPerSec == null ? rateCapBytesPerSec
                : Long.valueOf(Math.min(rateCapBytesPerSec, other.rateCapBytesPerSec));
        return new PortTraffic(txBytes + other.txBytes, rxBytes + other.rxBytes, txPackets + other.txPackets,
                rxPackets + other.rxPackets, sum, linkUp && other.linkUp, cap);
    }
}
