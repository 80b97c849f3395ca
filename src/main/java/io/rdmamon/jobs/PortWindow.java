package io.rdmamon.jobs;

import io.rdmamon.model.PortSample;

import java.util.List;

/**
 * One port's traffic for one job in one window: bytes and covered milliseconds summed per direction over the samples
 * with a known rate, so the window rate is an average over what was measured (a missing sample is unknown, not 0).
 * {@code sharedBy} is the most Running jobs that held the device during the window.
 */
public record PortWindow(String job, String namespace, int expectedRanks, String node, String device, int port,
                         List<Integer> ranks, int sharedBy, double txBytes, long txMs, double rxBytes, long rxMs,
                         Long rateBytesPerSec) {
    public PortWindow {
        ranks = ranks == null ? List.of() : List.copyOf(ranks);
    }

    public static PortWindow empty(JobSample js) {
        PortTraffic s = js.traffic();
        Holder h = js.holder();
        return new PortWindow(h.job(), h.namespace(), h.expectedRanks(), s.node(), s.device(), s.port(),
                h.rankNumbers(), js.sharedBy(), 0, 0, 0, 0, s.rateBytesPerSec());
    }

    public PortWindow add(JobSample js) {
        PortTraffic s = js.traffic();
        long interval = s.intervalMs();
        boolean tx = s.txBytesPerSec() != null && interval > 0;
        boolean rx = s.rxBytesPerSec() != null && interval > 0;
        return new PortWindow(job, namespace, expectedRanks, node, device, port, ranks,
                Math.max(sharedBy, js.sharedBy()),
                txBytes + (tx ? s.txBytesPerSec() * interval / 1000.0 : 0), txMs + (tx ? interval : 0),
                rxBytes + (rx ? s.rxBytesPerSec() * interval / 1000.0 : 0), rxMs + (rx ? interval : 0),
                s.rateBytesPerSec() != null ? s.rateBytesPerSec() : rateBytesPerSec);
    }

    /** Average transmit rate of the whole device over the window, null when no sample had a transmit rate. */
    public Double txBytesPerSec() {
        return txMs == 0 ? null : txBytes * 1000.0 / txMs;
    }

    public Double rxBytesPerSec() {
        return rxMs == 0 ? null : rxBytes * 1000.0 / rxMs;
    }

    /** tx + rx, null when either is unknown. */
    public Double totalBytesPerSec() {
        Double tx = txBytesPerSec();
        Double rx = rxBytesPerSec();
        return tx == null || rx == null ? null : tx + rx;
    }

    public String portKey() {
        return PortSample.key(node, device, port);
    }

    /** Same device name and port on every node: NIC i of each node, whose traffic is comparable. */
    public String rail() {
        return device + "/" + port;
    }

    public boolean shared() {
        return sharedBy > 1;
    }
}
