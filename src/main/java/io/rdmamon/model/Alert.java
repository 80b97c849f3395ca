package io.rdmamon.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.Map;

/**
 * An incident, firing or resolved: topic {@link Topics#ALERTS}, key = {@link #id()}. One {@code firing} and one
 * {@code resolved} record per incident; {@code id} is stable for the incident (derived from type, subject and
 * {@code startsAt}). Times are event time, epoch ms. Fields that do not apply to the alert type are omitted.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"v", "id", "type", "status", "severity", "job", "namespace", "node", "device", "port",
        "startsAt", "detectedAt", "endsAt", "summary", "labels"})
public record Alert(
        int v,
        String id,
        String type,
        String status,
        String severity,
        String job,
        String namespace,
        String node,
        String device,
        Integer port,
        long startsAt,
        long detectedAt,
        Long endsAt,
        String summary,
        Map<String, String> labels) {

    public static final int VERSION = 1;
    public static final String FIRING = "firing";
    public static final String RESOLVED = "resolved";

    public static final String STALLED_SYNC = "STALLED_SYNC";
    public static final String STRAGGLER = "STRAGGLER";
    public static final String LINK_DOWN = "LINK_DOWN";
    public static final String LINK_DEGRADED = "LINK_DEGRADED";
    public static final String LINK_IDLE = "LINK_IDLE";
    public static final String COLLECTOR_SILENT = "COLLECTOR_SILENT";
    public static final String TCP_FALLBACK = "TCP_FALLBACK";
    /** A GPU whose readings turned to errors (fell off the bus, lost by its driver). */
    public static final String GPU_LOST = "GPU_LOST";
    /** Every GPU a Running job used left without a compute process for minutes. */
    public static final String GPU_IDLE = "GPU_IDLE";

    public Alert {
        labels = labels == null ? Map.of() : labels;
    }
}
