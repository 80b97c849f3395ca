package io.rdmamon.jobs;

import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.PortSample;

import java.util.Map;

/**
 * A job whose collectives are meant to go over NCCL's socket transport (ACS P16EN: {@code NCCL_IB_DISABLE=1},
 * {@code NCCL_SOCKET_IFNAME=eth0}) names that interface as its ranks' device ({@code jobs watch},
 * {@code rdmamon.io/transport=socket}). Its host-interface samples then also stand as the job's port, source
 * {@value #SOURCE}, port 1: its bandwidth counts them, STALLED_SYNC and STRAGGLER judge them like an RDMA port. The
 * interface stays a host interface too (checkpoint traffic, TCP_FALLBACK's host side, which skips such jobs).
 */
public final class SocketPorts {
    public static final String SOURCE = "socket";
    /** The job record's label that says its collectives are meant to use sockets, with value {@value #SOURCE}. */
    public static final String TRANSPORT_LABEL = "rdmamon.io/transport";
    public static final int PORT = 1;

    private SocketPorts() {
    }

    /** The job's record says its collectives are meant to go over sockets. */
    public static boolean intended(JobRecord job) {
        return SOURCE.equals(job.labels().get(TRANSPORT_LABEL));
    }

    /**
     * The port sample a host-interface sample stands for. Link state and nominal rate are unknown (null); the
     * interface's error and drop counts stay on the host sample: a socket port has no RDMA error classes.
     */
    public static PortSample of(HostIfaceSample h) {
        return new PortSample(PortSample.VERSION, h.node(), h.iface(), PORT, h.ts(), h.intervalMs(), SOURCE, null, null,
                "Ethernet", null, h.txBytesPerSec(), h.rxBytesPerSec(), h.txPacketsPerSec(), h.rxPacketsPerSec(),
                Map.of(), Map.of());
    }
}
