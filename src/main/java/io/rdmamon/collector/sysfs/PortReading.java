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
public final class PortReading {
    private final String device;
    private final int port;
    private final PortState state;
    private final PortState physState;
    private final String linkLayer;
    private final String rateText;
    private final Long rateBytesPerSec;
    private final Counters counters;
    private final Counters countersExt;
    private final Counters hw;
    private final Long hwLifespanMs;
    private final Counters deviceHw;
    private final boolean deviceTraffic;

    /** @param hwLifespanMs {@code hw_counters/lifespan}: how long the kernel caches hw_counters values */
    PortReading(String device, int port, PortState state, PortState physState, String linkLayer, String rateText,
                Long rateBytesPerSec, Counters counters, Counters countersExt, Counters hw, Long hwLifespanMs) {
        this(device, port, state, physState, linkLayer, rateText, rateBytesPerSec, counters, countersExt, hw,
                hwLifespanMs, Counters.NONE, false);
    }

    private PortReading(String device, int port, PortState state, PortState physState, String linkLayer,
                        String rateText, Long rateBytesPerSec, Counters counters, Counters countersExt, Counters hw,
                        Long hwLifespanMs, Counters deviceHw, boolean deviceTraffic) {
        this.device = device;
        this.port = port;
        this.state = state;
        this.physState = physState;
        this.linkLayer = linkLayer;
        this.rateText = rateText;
        this.rateBytesPerSec = rateBytesPerSec;
        this.counters = counters;
        this.countersExt = countersExt;
        this.hw = hw;
        this.hwLifespanMs = hwLifespanMs;
        this.deviceHw = deviceHw;
        this.deviceTraffic = deviceTraffic;
    }

    /**
     * The same reading with the device-level {@code hw_counters/} standing in for what the port's own lacks.
     *
     * @param traffic all of them (the device's only port); otherwise only error counters, which a multi-port device
     *                reports on its first port
     */
    PortReading withDeviceCounters(Counters device, boolean traffic) {
        return new PortReading(this.device, port, state, physState, linkLayer, rateText, rateBytesPerSec, counters,
                countersExt, hw, hwLifespanMs, device, traffic);
    }

    public String device() {
        return device;
    }

    public int port() {
        return port;
    }

    public PortState state() {
        return state;
    }

    public PortState physState() {
        return physState;
    }

    public String linkLayer() {
        return linkLayer;
    }

    public String rateText() {
        return rateText;
    }

    public Long rateBytesPerSec() {
        return rateBytesPerSec;
    }

    public Long hwLifespanMs() {
        return hwLifespanMs;
    }

    /** The port's own counters of a folder (without the device's). */
    Counters folder(CounterFolder folder) {
        return switch (folder) {
            case COUNTERS -> counters;
            case COUNTERS_EXT -> countersExt;
            case HW_COUNTERS -> hw;
        };
    }

    /** The device-level hw_counters standing in for the port's ({@link Counters#NONE} when none do). */
    Counters deviceHw() {
        return deviceHw;
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
        return counters.asMap();
    }

    /** {@code counters_ext/}: known values by name (for tests and diagnostics). */
    public Map<String, Long> countersExt() {
        return countersExt.asMap();
    }

    /** {@code hw_counters/} with what the device's stand in for: known values by name (tests and diagnostics). */
    public Map<String, Long> hwCounters() {
        Map<String, Long> merged = new TreeMap<>(hw.asMap());
        deviceHw.asMap().forEach((name, value) -> {
            if (holding(CounterFolder.HW_COUNTERS, name) == deviceHw) {
                merged.putIfAbsent(name, value);
            }
        });
        return merged;
    }
}
