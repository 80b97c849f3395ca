package io.rdmamon.jobs;

import io.rdmamon.model.PortSample;

/**
 * The part of a {@link PortSample} that job-level stages use: which port, when, and its traffic. Only this crosses
 * the {@code job-event-batches} repartition: link states, packet rates and error counters are judged per port on the
 * node side ({@code PortJudge}) and would only be encoded and decoded again for every sample of a job.
 */
public record PortTraffic(String node, String device, int port, long ts, long intervalMs, Long rateBytesPerSec,
                          Double txBytesPerSec, Double rxBytesPerSec) {

    public static PortTraffic of(PortSample s) {
        return new PortTraffic(s.node(), s.device(), s.port(), s.ts(), s.intervalMs(), s.rateBytesPerSec(),
                s.txBytesPerSec(), s.rxBytesPerSec());
    }

    /** {@code node/device/port}, as {@link PortSample#key()}. */
    public String key() {
        return PortSample.key(node, device, port);
    }
}
