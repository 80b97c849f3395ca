package io.rdmamon.model;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.Map;

/**
 * One port's health for one sample: topic {@link Topics#LINK_HEALTH}, key {@code node/device/port}.
 * {@code txUtilisation}/{@code rxUtilisation} are fractions (0..1) of {@code rateBytesPerSec}, null when either is
 * unknown. {@code errorClasses} holds the interval's error increments summed by {@link CounterClass}.
 * {@code job} is the uid of the Running job the port is assigned to, or null; when several Running jobs hold the
 * device, {@code job} is the first of them by uid and {@code sharedBy} says how many hold it (null when unassigned).
 */
@JsonPropertyOrder({"v", "node", "device", "port", "ts", "state", "physState", "rateBytesPerSec", "txBytesPerSec",
        "rxBytesPerSec", "txUtilisation", "rxUtilisation", "errorClasses", "job", "namespace", "sharedBy"})
public record LinkHealth(
        int v,
        String node,
        String device,
        int port,
        long ts,
        String state,
        String physState,
        Long rateBytesPerSec,
        Double txBytesPerSec,
        Double rxBytesPerSec,
        Double txUtilisation,
        Double rxUtilisation,
        Map<String, Long> errorClasses,
        String job,
        String namespace,
        Integer sharedBy) {

    public static final int VERSION = 1;

    public LinkHealth {
        errorClasses = errorClasses == null ? Map.of() : errorClasses;
    }

    /** Without {@code sharedBy}: the record as first published. */
    public LinkHealth(int v, String node, String device, int port, long ts, String state, String physState,
                      Long rateBytesPerSec, Double txBytesPerSec, Double rxBytesPerSec, Double txUtilisation,
                      Double rxUtilisation, Map<String, Long> errorClasses, String job, String namespace) {
        this(v, node, device, port, ts, state, physState, rateBytesPerSec, txBytesPerSec, rxBytesPerSec,
                txUtilisation, rxUtilisation, errorClasses, job, namespace, null);
    }
}
