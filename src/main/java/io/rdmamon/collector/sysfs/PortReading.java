package io.rdmamon.collector.sysfs;

import java.util.Map;
import java.util.TreeMap;

/**
 * Everything one pass read from {@code class/infiniband/<device>/ports/<port>/}, raw: counter values as the files
 * hold them ({@code port_*_data} still in 4-octet words). A counter whose value is not known (missing file,
 * {@code N/A (no PMA)}, unreadable, garbage) has no value — never 0. Text attributes are {@code null} when unknown.
 *
 * <p>The device's {@code hw_counters/} may stand in for the port's own (see {@link #withDeviceCounters}): a counter of
 * the port's folder wins, one only the device has counts as the port's.
 */
public record PortReading(String device, int port, PortState state, PortState physState, String linkLayer,
                          String rateText, Long rateBytesPerSec, Counters portCounters, Counters portCountersExt,
                          Counters portHw, Long hwLifespanMs, Counters deviceHw, boolean deviceTraffic) {

    /**
     * A port's own reading, without the device's counters.
     *
     * @param hwLifespanMs {@code hw_counters/lifespan}: how long the kernel caches hw_counters values
     */
    PortReading(String device, int port, PortState state, PortState physState, String linkLayer, String rateText,
                Long rateBytesPerSec, Counters counters, Counters countersExt, Counters hw, Long hwLifespanMs) {
        this(device, port, state, physState, linkLayer, rateText, rateBytesPerSec, counters, countersExt, hw,
                hwLifespanMs, Counters.NONE, false);
    }

    /**
     * The same reading with the device-level {@code hw_counters/} standing in for what the port's own lacks
     * ({@link #deviceHw}; {@link Counters#NONE} when none do).
     *
     * @param traffic all of them (the device's only port); otherwise only error counters, which a multi-port device
     *                reports on its first port
     */
    PortReading withDeviceCounters(Counters device, boolean traffic) {
        return new PortReading(this.device, port, state, physState, linkLayer, rateText, rateBytesPerSec,
                portCounters, portCountersExt, portHw, hwLifespanMs, device, traffic);
    }

    /** The port's own counters of a folder (without the device's). */
    Counters folder(CounterFolder folder) {
        return switch (folder) {
            case COUNTERS -> portCounters;
            case COUNTERS_EXT -> portCountersExt;
            case HW_COUNTERS -> portHw;
        };
    }

    /**
     * The counters that hold a known value of this counter — the folder's; for hw_counters the port's own, else the
     * device's when they stand in for it — or {@code null} when the value is unknown.
     */
    Counters holding(CounterFolder folder, String name) {
        Counters own = folder(folder);
        if (own.knownIndex(name) >= 0) {
            return own;
        }
        if (folder == CounterFolder.HW_COUNTERS) {
            int i = deviceHw.knownIndex(name);
            if (i >= 0 && (deviceTraffic || deviceHw.files.classes[i] != null)) {
                return deviceHw;
            }
        }
        return null;
    }

    /** The raw value, or {@code null} when unknown. */
    public Long counter(CounterFolder folder, String name) {
        Counters holder = holding(folder, name);
        return holder == null ? null : holder.get(name);
    }

    /** {@code counters/}: known values by name (for tests and diagnostics). */
    public Map<String, Long> counters() {
        return portCounters.asMap();
    }

    /** {@code counters_ext/}: known values by name (for tests and diagnostics). */
    public Map<String, Long> countersExt() {
        return portCountersExt.asMap();
    }

    /** {@code hw_counters/} with what the device's stand in for: known values by name (tests and diagnostics). */
    public Map<String, Long> hwCounters() {
        Map<String, Long> merged = new TreeMap<>(portHw.asMap());
        deviceHw.asMap().forEach((name, value) -> {
            if (holding(CounterFolder.HW_COUNTERS, name) == deviceHw) {
                merged.putIfAbsent(name, value);
            }
        });
        return merged;
    }
}
