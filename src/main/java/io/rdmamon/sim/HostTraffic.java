package io.rdmamon.sim;

/** Bytes a job made one rank's node move over its host (TCP/storage) network in one interval. */
public record HostTraffic(long txBytes, long rxBytes) {
    public static final HostTraffic NONE = new HostTraffic(0, 0);

    public HostTraffic plus(HostTraffic other) {
        return new HostTraffic(txBytes + other.txBytes, rxBytes + other.rxBytes);
    }
}
