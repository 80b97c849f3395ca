package io.rdmamon.collector.sysfs;

import java.util.Map;

/**
 * The folders of a port that hold counters, and how wide each counter is. Classic InfiniBand PortCounters stop at all
 * ones instead of wrapping, so a counter at its maximum says nothing about the traffic since: such a value gives no
 * increment (see {@link Increments}).
 */
public enum CounterFolder {
    /** PortCounters from the port's PMA (IB, RoCE on mlx). Widths from the IBA spec, see {@link #CLASSIC_BITS}. */
    COUNTERS("counters"),
    /** Kernels before 4.5: 64-bit data and packet counters ({@code port_xmit_data_64}, ...). */
    COUNTERS_EXT("counters_ext"),
    /** Driver counters (kernel 4.6+), unsigned 64-bit. The folder also holds {@code lifespan}, which is no counter. */
    HW_COUNTERS("hw_counters");

    private static final long ALL_ONES_64 = -1L;

    /**
     * Widths of the classic counters. The data and packet counters are listed at 32 bits although many adapters serve
     * them from the 64-bit extended table: a value of exactly 2^32-1 there is suspect either way.
     */
    private static final Map<String, Integer> CLASSIC_BITS = Map.ofEntries(
            Map.entry("port_xmit_data", 32),
            Map.entry("port_rcv_data", 32),
            Map.entry("port_xmit_packets", 32),
            Map.entry("port_rcv_packets", 32),
            Map.entry("port_xmit_wait", 32),
            Map.entry("symbol_error", 16),
            Map.entry("port_rcv_errors", 16),
            Map.entry("port_rcv_remote_physical_errors", 16),
            Map.entry("port_rcv_switch_relay_errors", 16),
            Map.entry("port_xmit_discards", 16),
            Map.entry("VL15_dropped", 16),
            Map.entry("link_error_recovery", 8),
            Map.entry("link_downed", 8),
            Map.entry("port_xmit_constraint_errors", 8),
            Map.entry("port_rcv_constraint_errors", 8),
            Map.entry("local_link_integrity_errors", 4),
            Map.entry("excessive_buffer_overrun_errors", 4));

    private final String dirName;

    CounterFolder(String dirName) {
        this.dirName = dirName;
    }

    /** The folder's name under {@code ports/<n>/}. */
    public String dirName() {
        return dirName;
    }

    /** The value at which this counter is stuck (all ones for its width): 2^64-1, read as unsigned, when 64-bit. */
    public long saturatedValue(String counter) {
        if (this == COUNTERS) {
            Integer bits = CLASSIC_BITS.get(counter);
            if (bits != null) {
                return (1L << bits) - 1;
            }
        }
        return ALL_ONES_64;
    }

    public boolean isSaturated(String counter, long value) {
        return value == saturatedValue(counter);
    }
}
