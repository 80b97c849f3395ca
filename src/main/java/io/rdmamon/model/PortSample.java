package io.rdmamon.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.Map;

/**
 * One RDMA port's traffic over one sampling interval: topic {@link Topics#PORT_SAMPLES}, key {@link #key()}.
 *
 * <p>Rates are {@code null} when no valid rate exists (first sample, counter reset, saturated counter, unknown
 * value): a missing rate is unknown, never zero. {@code errors} holds, per error/discard/drop/retransmit/congestion
 * counter, its increment over the interval, non-zero entries only; {@code errorClasses} sums them by
 * {@link CounterClass}.
 */
@JsonPropertyOrder({"v", "node", "device", "port", "ts", "intervalMs", "source", "state", "physState", "linkLayer",
        "rateBytesPerSec", "txBytesPerSec", "rxBytesPerSec", "txPacketsPerSec", "rxPacketsPerSec", "errors",
        "errorClasses"})
public record PortSample(
        int v,
        String node,
        String device,
        int port,
        long ts,
        long intervalMs,
        String source,
        String state,
        String physState,
        String linkLayer,
        Long rateBytesPerSec,
        Double txBytesPerSec,
        Double rxBytesPerSec,
        Double txPacketsPerSec,
        Double rxPacketsPerSec,
        Map<String, Long> errors,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, Long> errorClasses) {

    public static final int VERSION = 1;
    public static final String SOURCE_SYSFS = "sysfs";
    public static final String SOURCE_EADM = "eadm";

    public PortSample {
        errors = errors == null ? Map.of() : errors;
        errorClasses = errorClasses == null ? Map.of() : errorClasses;
    }

    public String key() {
        return key(node, device, port);
    }

    public static String key(String node, String device, int port) {
        return node + "/" + device + "/" + port;
    }

    /** The same sample at another time: a node's clock corrected (io.rdmamon.clock). */
    public PortSample withTs(long newTs) {
        return new PortSample(v, node, device, port, newTs, intervalMs, source, state, physState, linkLayer,
                rateBytesPerSec, txBytesPerSec, rxBytesPerSec, txPacketsPerSec, rxPacketsPerSec, errors, errorClasses);
    }
}
