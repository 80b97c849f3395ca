package io.rdmamon.sim;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The counter files a simulated NIC reports its errors in, per driver (see rdma-counters.md): mlx5 has retransmit,
 * CNP and link_downed counters; eRDMA only rate-limit drop counters in hw_counters and no counters/ folder, so its
 * retransmits, congestion and link_downed stay invisible — as on a real eRDMA node.
 */
public enum NicDriver {
    MLX5("InfiniBand", Map.of(
            ErrorKind.RETRANSMIT, List.of("roce_adp_retrans", "out_of_sequence"),
            ErrorKind.DROP, List.of("out_of_buffer"),
            ErrorKind.CONGESTION, List.of("np_cnp_sent"),
            ErrorKind.LINK_DOWNED, List.of("link_downed"))),
    ERDMA("Ethernet", Map.of(
            ErrorKind.DROP, List.of("tx_bps_limit_drop_cnt", "rx_bps_limit_drop_cnt")));

    private final String linkLayer;
    private final Map<ErrorKind, List<String>> counters;

    NicDriver(String linkLayer, Map<ErrorKind, List<String>> counters) {
        this.linkLayer = linkLayer;
        this.counters = counters;
    }

    /** The driver of a device by its name: {@code erdma_0} is eRDMA, anything else is treated as mlx5. */
    public static NicDriver ofDevice(String device) {
        return device.startsWith("erdma") ? ERDMA : MLX5;
    }

    public String linkLayer() {
        return linkLayer;
    }

    /**
     * Increments by counter file name (sorted, non-zero only): each kind's count is split over its counters, the
     * first taking the remainder. Kinds the driver has no counter for are not visible.
     */
    public Map<String, Long> counterIncrements(Map<ErrorKind, Long> byKind) {
        Map<String, Long> out = new TreeMap<>();
        byKind.forEach((kind, count) -> {
            List<String> names = counterNames(kind);
            if (names.isEmpty() || count <= 0) {
                return;
            }
            long each = count / names.size();
            for (int i = 0; i < names.size(); i++) {
                long value = i == 0 ? count - each * (names.size() - 1) : each;
                if (value > 0) {
                    out.merge(names.get(i), value, Long::sum);
                }
            }
        });
        return out;
    }

    /** The counter files this driver has for a kind (empty when the kind is invisible on this driver). */
    public List<String> counterNames(ErrorKind kind) {
        return counters.getOrDefault(kind, List.of());
    }
}
