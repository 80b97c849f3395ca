package io.rdmamon.sim;

/**
 * The shape of one training phase on one NIC: every {@code iterationMs} the rank computes, then exchanges gradients
 * in a burst of {@code burstMs} at {@code burstBytesPerSec} (the burst closes the iteration). The quiet gap between
 * bursts is {@code iterationMs - burstMs}: sub-second for a communication-bound job, seconds for one with gradient
 * accumulation. Example: 800 ms iterations with 500 ms bursts at 15 GB/s move 7.5 GB per iteration per NIC.
 */
public record TrafficProfile(long iterationMs, long burstMs, double burstBytesPerSec) {

    public TrafficProfile {
        if (iterationMs <= 0 || burstMs <= 0 || burstMs > iterationMs) {
            throw new IllegalArgumentException("need 0 < burstMs <= iterationMs, got burstMs=" + burstMs
                    + " iterationMs=" + iterationMs);
        }
        if (burstBytesPerSec < 0) {
            throw new IllegalArgumentException("burstBytesPerSec must be >= 0, got " + burstBytesPerSec);
        }
    }

    /** A profile at {@code utilisation} of a link of {@code linkBytesPerSec} during bursts. */
    public static TrafficProfile of(long iterationMs, long burstMs, long linkBytesPerSec, double utilisation) {
        return new TrafficProfile(iterationMs, burstMs, linkBytesPerSec * utilisation);
    }

    /** Whether the NIC is sending {@code sincePhaseStartMs} after the phase began. */
    public boolean inBurst(long sincePhaseStartMs) {
        long inIteration = Math.floorMod(sincePhaseStartMs, iterationMs);
        return inIteration >= iterationMs - burstMs;
    }

    /** Long-run average bytes per second. */
    public double meanBytesPerSec() {
        return burstBytesPerSec * burstMs / iterationMs;
    }
}
