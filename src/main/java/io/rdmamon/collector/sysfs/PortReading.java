package io.rdmamon.collector.sysfs;

import java.util.Map;

/**
 * Everything one pass read from {@code class/infiniband/<device>/ports/<port>/}, raw: counter values as the files
 * hold them ({@code port_*_data} still in 4-octet words). A counter that is absent from its map is unknown (missing
 * file, {@code N/A (no PMA)}, unreadable, garbage) — never 0. Text attributes are {@code null} when unknown.
 *
 * @param hwLifespanMs {@code hw_counters/lifespan}: how long the kernel caches hw_counters values
 */
public record PortReading(
        String device,
        int port,
        PortState state,
        PortState physState,
        String linkLayer,
        String rateText,
        Long rateBytesPerSec,
        Map<String, Long> counters,
        Map<String, Long> countersExt,
        Map<String, Long> hwCounters,
        Long hwLifespanMs) {

    public PortReading {
        counters = Map.copyOf(counters);
        countersExt = Map.copyOf(countersExt);
        hwCounters = Map.copyOf(hwCounters);
    }

    public Map<String, Long> folder(CounterFolder folder) {
        return switch (folder) {
            case COUNTERS -> counters;
            case COUNTERS_EXT -> countersExt;
            case HW_COUNTERS -> hwCounters;
        };
    }

    /** The raw value, or {@code null} when unknown. */
    public Long counter(CounterFolder folder, String name) {
        return folder(folder).get(name);
    }

    /** The same reading with other hw_counters (the device-level ones merged in). */
    public PortReading withHwCounters(Map<String, Long> merged) {
        return new PortReading(device, port, state, physState, linkLayer, rateText, rateBytesPerSec, counters,
                countersExt, merged, hwLifespanMs);
    }
}
