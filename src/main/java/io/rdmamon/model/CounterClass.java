package io.rdmamon.model;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What an RDMA error-type counter says about a link. The collector reports increments of every counter that has a
 * class; the stream app judges link health by class, so a new driver's counter needs only a line here.
 */
public enum CounterClass {
    /** The link went down or had to retrain: link_downed, link_error_recovery. */
    LINK_DOWN("linkDown"),
    /** Physical-layer and integrity errors: symbol errors, bad packets received. */
    PHYSICAL("physical"),
    /** Loss and retransmission at the transport: sequence errors, ACK timeouts, adaptive retransmits. */
    RETRANSMIT("retransmit"),
    /** Congestion control at work or back-pressure: CNPs, ECN marks, xmit wait. */
    CONGESTION("congestion"),
    /** Packets dropped or discarded: no receive buffer, discards, cloud rate-limit drops. */
    DROP("drop"),
    /** Completion and access errors seen by applications. */
    COMPLETION("completion"),
    /** Connection setup failures (eRDMA connection manager). */
    CONNECTION("connection");

    private final String wireName;

    CounterClass(String wireName) {
        this.wireName = wireName;
    }

    /** The name used in JSON ({@code errorClasses}) and as an InfluxDB tag value. */
    public String wireName() {
        return wireName;
    }

    private static final Map<String, CounterClass> BY_NAME = Map.ofEntries(
            // classic InfiniBand PortCounters (counters/)
            Map.entry("link_downed", LINK_DOWN),
            Map.entry("link_error_recovery", LINK_DOWN),
            Map.entry("symbol_error", PHYSICAL),
            Map.entry("port_rcv_errors", PHYSICAL),
            Map.entry("port_rcv_remote_physical_errors", PHYSICAL),
            Map.entry("port_rcv_switch_relay_errors", PHYSICAL),
            Map.entry("local_link_integrity_errors", PHYSICAL),
            Map.entry("port_xmit_constraint_errors", PHYSICAL),
            Map.entry("port_rcv_constraint_errors", PHYSICAL),
            Map.entry("port_xmit_discards", DROP),
            Map.entry("port_rcv_discards", DROP),
            Map.entry("vl15_dropped", DROP),
            Map.entry("excessive_buffer_overrun_errors", DROP),
            Map.entry("port_xmit_wait", CONGESTION),
            // mlx5 hw_counters
            Map.entry("out_of_buffer", DROP),
            Map.entry("out_of_sequence", RETRANSMIT),
            Map.entry("packet_seq_err", RETRANSMIT),
            Map.entry("implied_nak_seq_err", RETRANSMIT),
            Map.entry("local_ack_timeout_err", RETRANSMIT),
            Map.entry("duplicate_request", RETRANSMIT),
            Map.entry("rnr_nak_retry_err", RETRANSMIT),
            Map.entry("roce_adp_retrans", RETRANSMIT),
            Map.entry("roce_adp_retrans_to", RETRANSMIT),
            Map.entry("req_rnr_retries_exceeded", RETRANSMIT),
            Map.entry("req_transport_retries_exceeded", RETRANSMIT),
            Map.entry("np_cnp_sent", CONGESTION),
            Map.entry("rp_cnp_handled", CONGESTION),
            Map.entry("rp_cnp_ignored", CONGESTION),
            Map.entry("np_ecn_marked_roce_packets", CONGESTION),
            Map.entry("roce_slow_restart", CONGESTION),
            Map.entry("roce_slow_restart_cnps", CONGESTION),
            Map.entry("roce_slow_restart_trans", CONGESTION),
            Map.entry("rx_icrc_encapsulated", PHYSICAL),
            Map.entry("req_cqe_error", COMPLETION),
            Map.entry("req_cqe_flush_error", COMPLETION),
            Map.entry("resp_cqe_flush_error", COMPLETION),
            Map.entry("resp_cqe_error", COMPLETION),
            Map.entry("req_remote_access_errors", COMPLETION),
            Map.entry("req_remote_invalid_request", COMPLETION),
            Map.entry("resp_local_length_error", COMPLETION),
            Map.entry("resp_remote_access_errors", COMPLETION),
            // rxe (soft-RoCE) hw_counters
            Map.entry("out_of_seq_request", RETRANSMIT),
            Map.entry("rcvd_seq_err", RETRANSMIT),
            Map.entry("retry_exceeded_err", RETRANSMIT),
            Map.entry("retry_rnr_exceeded_err", RETRANSMIT),
            // eRDMA, upstream and out-of-tree namings
            Map.entry("accept_failed_cnt", CONNECTION),
            Map.entry("connect_failed_cnt", CONNECTION),
            Map.entry("connect_timeout_cnt", CONNECTION),
            Map.entry("connect_reset_cnt", CONNECTION));

    /**
     * The class of a counter file name, or empty for traffic and informational counters. eRDMA drop counters
     * ({@code tx_bps_limit_drop_cnt}, {@code hw_disable_drop_cnt}, ...) are matched by suffix so both namings work.
     */
    public static Optional<CounterClass> of(String counterName) {
        String name = counterName.toLowerCase(Locale.ROOT);
        CounterClass known = BY_NAME.get(name);
        if (known != null) {
            return Optional.of(known);
        }
        if (name.endsWith("_drop_cnt")) {
            return Optional.of(DROP);
        }
        return Optional.empty();
    }
}
