package io.rdmamon.sim;

import java.util.List;

/** The counter files real drivers create, so that a simulated tree has what a real one has (and as many files). */
final class SimCounterNames {
    /** {@code ports/<n>/counters/} of an mlx5 port (the PMA's PortCounters plus the extended unicast/multicast). */
    static final List<String> CLASSIC = List.of("VL15_dropped", "excessive_buffer_overrun_errors", "link_downed",
            "link_error_recovery", "local_link_integrity_errors", "multicast_rcv_packets", "multicast_xmit_packets",
            "port_rcv_constraint_errors", "port_rcv_data", "port_rcv_errors", "port_rcv_packets",
            "port_rcv_remote_physical_errors", "port_rcv_switch_relay_errors", "port_xmit_constraint_errors",
            "port_xmit_data", "port_xmit_discards", "port_xmit_packets", "port_xmit_wait", "symbol_error",
            "unicast_rcv_packets", "unicast_xmit_packets");

    /** mlx5 q-counters, extended error and RoCE acceleration counters: {@code ports/<n>/hw_counters/}. */
    static final List<String> MLX5_HW = List.of("duplicate_request", "implied_nak_seq_err", "local_ack_timeout_err",
            "out_of_buffer", "out_of_sequence", "packet_seq_err", "req_cqe_error", "req_cqe_flush_error",
            "req_remote_access_errors", "req_remote_invalid_request", "resp_cqe_error", "resp_cqe_flush_error",
            "resp_local_length_error", "resp_remote_access_errors", "rnr_nak_retry_err", "roce_adp_retrans",
            "roce_adp_retrans_to", "roce_slow_restart", "roce_slow_restart_cnps", "roce_slow_restart_trans",
            "rx_atomic_requests", "rx_dct_connect", "rx_icrc_encapsulated", "rx_read_requests", "rx_write_requests");

    /** mlx5 congestion-control counters, present on RoCE (Ethernet) ports only. */
    static final List<String> MLX5_HW_ROCE_CC = List.of("np_cnp_sent", "np_ecn_marked_roce_packets", "rp_cnp_handled",
            "rp_cnp_ignored");

    /** The upstream kernel's erdma driver: {@code ports/1/hw_counters/} only. */
    static final List<String> ERDMA_UPSTREAM = List.of("rx_bps_limit_drop_cnt", "rx_bytes_cnt",
            "rx_disable_drop_cnt", "rx_packets_cnt", "rx_pps_limit_drop_cnt", "tx_bps_limit_drop_cnt", "tx_bytes_cnt",
            "tx_disable_drop_cnt", "tx_packets_cnt", "tx_pps_limit_drop_cnt", "tx_reqs_cnt");

    /** Alibaba's out-of-tree erdma driver: hardware counters with an {@code hw_} prefix plus connection and verbs. */
    static final List<String> ERDMA_OUT_OF_TREE = List.of("accept_failed_cnt", "accept_success_cnt",
            "accept_total_cnt", "cmdq_comp_cnt", "cmdq_cq_armed_cnt", "cmdq_eq_event_cnt", "cmdq_eq_notify_cnt",
            "cmdq_submitted_cnt", "connect_failed_cnt", "connect_reset_cnt", "connect_success_cnt",
            "connect_timeout_cnt", "connect_total_cnt", "erdma_aeq_event_cnt", "erdma_aeq_notify_cnt",
            "hw_bps_limit_drop_cnt", "hw_disable_drop_cnt", "hw_pps_limit_drop_cnt", "hw_rx_bps_limit_drop_cnt",
            "hw_rx_bytes_cnt", "hw_rx_disable_drop_cnt", "hw_rx_packets_cnt", "hw_rx_pps_limit_drop_cnt",
            "hw_tx_bytes_cnt", "hw_tx_packets_cnt", "hw_tx_reqs_cnt", "listen_create_cnt", "listen_destroy_cnt",
            "listen_failed_cnt", "listen_ipv6_cnt", "listen_success_cnt", "reject_cnt", "reject_failed_cnt",
            "verbs_alloc_mr_cnt", "verbs_alloc_mr_failed_cnt", "verbs_alloc_pd_cnt", "verbs_alloc_pd_failed_cnt",
            "verbs_alloc_uctx_cnt", "verbs_alloc_uctx_failed_cnt", "verbs_create_cq_cnt",
            "verbs_create_cq_failed_cnt", "verbs_create_qp_cnt", "verbs_create_qp_failed_cnt", "verbs_dealloc_pd_cnt",
            "verbs_dealloc_uctx_cnt", "verbs_dereg_mr_cnt", "verbs_dereg_mr_failed_cnt", "verbs_destroy_cq_cnt",
            "verbs_destroy_cq_failed_cnt", "verbs_destroy_qp_cnt", "verbs_destroy_qp_failed_cnt",
            "verbs_get_dma_mr_cnt", "verbs_get_dma_mr_failed_cnt", "verbs_reg_usr_mr_cnt",
            "verbs_reg_usr_mr_failed_cnt");

    /** {@code class/net/<iface>/statistics/}. */
    static final List<String> NET_STATISTICS = List.of("collisions", "multicast", "rx_bytes", "rx_compressed",
            "rx_crc_errors", "rx_dropped", "rx_errors", "rx_fifo_errors", "rx_frame_errors", "rx_length_errors",
            "rx_missed_errors", "rx_nohandler", "rx_over_errors", "rx_packets", "tx_aborted_errors", "tx_bytes",
            "tx_carrier_errors", "tx_compressed", "tx_dropped", "tx_errors", "tx_fifo_errors",
            "tx_heartbeat_errors", "tx_packets", "tx_window_errors");

    private SimCounterNames() {
    }
}
