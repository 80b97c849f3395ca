package io.rdmamon.collector.sysfs;

import java.util.List;

/**
 * Where a port's traffic comes from, best source first: the 64-bit {@code counters_ext/} of old kernels, then the
 * driver's 64-bit hw_counters (eRDMA upstream {@code tx_bytes_cnt} and Alibaba's out-of-tree {@code hw_tx_bytes_cnt};
 * bytes are bytes), then the classic {@code counters/} ({@code port_*_data} counts 4-octet words). An increment is
 * taken from the first source present in both readings, so a source that comes and goes never mixes with another.
 */
public enum TrafficCounter {
    TX_BYTES("port_xmit_data", "tx_bytes_cnt", 4),
    RX_BYTES("port_rcv_data", "rx_bytes_cnt", 4),
    TX_PACKETS("port_xmit_packets", "tx_packets_cnt", 1),
    RX_PACKETS("port_rcv_packets", "rx_packets_cnt", 1);

    /** One counter file and its unit: bytes (or packets) per count. */
    private record Source(CounterFolder folder, String name, long unit) {
    }

    private final List<Source> sources;

    /**
     * @param classic     the {@code counters/} name; {@code counters_ext/} appends {@code _64}
     * @param erdma       the upstream eRDMA hw_counter; the out-of-tree driver prefixes {@code hw_}
     * @param classicUnit bytes per count of the classic and extended counters (4 for data, 1 for packets)
     */
    TrafficCounter(String classic, String erdma, long classicUnit) {
        this.sources = List.of(
                new Source(CounterFolder.COUNTERS_EXT, classic + "_64", classicUnit),
                new Source(CounterFolder.HW_COUNTERS, erdma, 1),
                new Source(CounterFolder.HW_COUNTERS, "hw_" + erdma, 1),
                new Source(CounterFolder.COUNTERS, classic, classicUnit));
    }

    /** The total so far in bytes or packets (raw value times unit) from the best source, or {@code null}. */
    public Long total(PortReading reading) {
        for (Source source : sources) {
            Counters holder = reading.holding(source.folder, source.name);
            if (holder != null) {
                return holder.valueOf(source.name) * source.unit;
            }
        }
        return null;
    }

    /** Whether some source of this counter is known in the reading. */
    boolean isKnown(PortReading reading) {
        for (Source source : sources) {
            if (reading.holding(source.folder, source.name) != null) {
                return true;
            }
        }
        return false;
    }

    /** Per second over the interval, or {@code null} when no source gives an honest increment. */
    public Double perSecond(PortReading previous, PortReading current, long intervalNanos) {
        for (Source source : sources) {
            Counters then = previous.holding(source.folder, source.name);
            Counters now = current.holding(source.folder, source.name);
            if (then != null && now != null) {
                int i = now.files.indexOf(source.name);
                long before = then.valueOf(source.name);
                long after = now.value(i);
                return Increments.isTrue(before, after, now.files.saturated[i])
                        ? Increments.perSecond(after - before, source.unit, intervalNanos) : null;
            }
        }
        return null;
    }
}
