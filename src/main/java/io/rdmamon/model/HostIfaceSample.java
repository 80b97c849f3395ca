package io.rdmamon.model;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.Map;

/**
 * One host network interface's traffic over one interval (TCP, storage): topic {@link Topics#HOST_SAMPLES}, key
 * {@code node/iface}. It lets the stream app tell a checkpoint (storage egress up while RDMA is quiet) from a hang.
 * Rates are {@code null} when unknown; {@code errors} holds non-zero increments of rx/tx errors and drops.
 */
@JsonPropertyOrder({"v", "node", "iface", "ts", "intervalMs", "txBytesPerSec", "rxBytesPerSec", "txPacketsPerSec",
        "rxPacketsPerSec", "errors"})
public record HostIfaceSample(
        int v,
        String node,
        String iface,
        long ts,
        long intervalMs,
        Double txBytesPerSec,
        Double rxBytesPerSec,
        Double txPacketsPerSec,
        Double rxPacketsPerSec,
        Map<String, Long> errors) {

    public static final int VERSION = 1;

    public HostIfaceSample {
        errors = errors == null ? Map.of() : errors;
    }

    public String key() {
        return node + "/" + iface;
    }

    /** The same sample at another time: a node's clock corrected (io.rdmamon.clock). */
    public HostIfaceSample withTs(long newTs) {
        return new HostIfaceSample(v, node, iface, newTs, intervalMs, txBytesPerSec, rxBytesPerSec, txPacketsPerSec,
                rxPacketsPerSec, errors);
    }
}
