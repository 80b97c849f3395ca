package io.rdmamon.sim;

/** What a simulated fault does to a link's error counters; {@link NicDriver} names the counter files per driver. */
public enum ErrorKind {
    RETRANSMIT,
    DROP,
    CONGESTION,
    LINK_DOWNED
}
