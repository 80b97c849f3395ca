package io.rdmamon.sim;

import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Synchronous data-parallel training on the wire: the bytes, packets and error increments each rank's NICs carry over
 * any interval, as a pure function of time (plus a seed for noise), so a scenario recorder and a live simulated
 * cluster get the same traffic.
 *
 * <p>Physics (docs/detection.md, Methods): ring all-reduce equalises bytes per iteration across ranks, so every rank bursts at the
 * same times with similar bytes; a fault on one rank or link slows ({@link Fault#jobFactor}) or blocks
 * ({@link Fault#stallsJob}) everyone; error counters are not equalised and point at the culprit link. Bursts are
 * integrated in {@value #STEP_MS} ms steps; each interval's bytes get a few percent of seeded noise.
 */
public final class TrainingTrafficModel {
    static final long STEP_MS = 5;
    /** RDMA payload per packet, for packet counts. */
    static final long MTU_BYTES = 4096;
    /** TCP over the host NIC tops out well below RDMA: a fallback rank moves at most this. */
    static final double HOST_TCP_BYTES_PER_SEC = 3.0e9;
    private static final double NOISE = 0.03;
    /** Chance per busy interval of a few background CNPs: healthy fabrics see some congestion control. */
    private static final double BACKGROUND_CNP_CHANCE = 0.03;

    private final TrainingJobSpec spec;
    private final long seed;

    public TrainingTrafficModel(TrainingJobSpec spec, long seed) {
        this.spec = spec;
        this.seed = seed;
    }

    public TrainingJobSpec spec() {
        return spec;
    }

    /** What port {@code device} of rank {@code rank} carried over [fromMs, toMs). */
    public PortTraffic port(int rank, int device, long fromMs, long toMs) {
        checkIndices(rank, device);
        SplittableRandom random = random(rank, device, fromMs);
        double bytes = integrate(rank, device, fromMs, toMs);
        long tx = noisy(bytes, random);
        long rx = noisy(bytes, random);
        Map<ErrorKind, Long> errors = new EnumMap<>(ErrorKind.class);
        for (ErrorKind kind : ErrorKind.values()) {
            double expected = 0;
            for (long t = fromMs; t < toMs; t += STEP_MS) {
                for (Fault fault : spec.faults()) {
                    expected += fault.errorsPerSec(rank, device, kind, t) * Math.min(STEP_MS, toMs - t) / 1000.0;
                }
            }
            long count = expected > 0 ? Math.max(1, noisy(expected, random)) : 0;
            if (kind == ErrorKind.LINK_DOWNED) {
                count += spec.faults().stream().mapToLong(f -> f.linkDownsIn(rank, device, fromMs, toMs)).sum();
            }
            if (kind == ErrorKind.CONGESTION && tx > 0 && random.nextDouble() < BACKGROUND_CNP_CHANCE) {
                count += 1 + random.nextInt(20);
            }
            if (count > 0) {
                errors.put(kind, count);
            }
        }
        long last = toMs - 1;
        boolean up = spec.faults().stream().noneMatch(f -> f.portDown(rank, device, last));
        Long cap = null;
        for (Fault fault : spec.faults()) {
            Long c = fault.portRateCap(rank, device, last);
            if (c != null && (cap == null || c < cap)) {
                cap = c;
            }
        }
        return new PortTraffic(tx, rx, packets(tx), packets(rx), errors, up, cap);
    }

    /** What the job made rank {@code rank}'s node send and receive over its host network in [fromMs, toMs). */
    public HostTraffic host(int rank, long fromMs, long toMs) {
        double tx = 0;
        double rx = 0;
        int peer = spec.ranks() > 1 ? (rank + 1) % spec.ranks() : rank;
        for (long t = fromMs; t < toMs; t += STEP_MS) {
            double dt = Math.min(STEP_MS, toMs - t) / 1000.0;
            if (running(t) && spec.checkpoints() != null && spec.checkpoints().inCheckpoint(t)) {
                tx += spec.checkpoints().egressBytesPerSec() * dt;
            }
            if (running(t) && spec.dataLoading() != null && spec.dataLoading().busy(t - spec.trafficStartMs())) {
                tx += spec.dataLoading().txBytesPerSec() * dt;
                rx += spec.dataLoading().rxBytesPerSec() * dt;
            }
            double share = 0;
            for (Fault fault : spec.faults()) {
                share = Math.max(share, fault.hostFallbackShare(rank, t));
            }
            if (share > 0) {
                // what the peer's ports would carry over RDMA: with a job-wide fallback they carry nothing
                double peerRate = 0;
                for (int d = 0; d < spec.devicesPerRank(); d++) {
                    peerRate += gradientRate(peer, d, t);
                }
                double moved = Math.min(peerRate * share, HOST_TCP_BYTES_PER_SEC) * dt;
                tx += moved;
                rx += moved;
            }
        }
        SplittableRandom random = random(rank, -1, fromMs);
        return new HostTraffic(noisy(tx, random), noisy(rx, random));
    }

    /** Whether rank {@code rank} is sending on port {@code device} at instant {@code t}. */
    public boolean sending(int rank, int device, long t) {
        return instantRate(rank, device, t) > 0;
    }

    /** The rank's sending rate on one port at instant {@code t}, bytes per second. */
    double instantRate(int rank, int device, long t) {
        return rate(rank, device, t, true);
    }

    /** The gradient traffic of one rail of a rank at {@code t}, before per-port faults divert or thin it. */
    private double gradientRate(int rank, int device, long t) {
        return rate(rank, device, t, false);
    }

    private double rate(int rank, int device, long t, boolean portFaults) {
        if (!running(t)) {
            return 0;
        }
        for (Fault fault : spec.faults()) {
            if (fault.stallsJob(t) || fault.portDown(rank, device, t)) {
                return 0;
            }
        }
        if (spec.checkpoints() != null && spec.checkpoints().inCheckpoint(t)) {
            return 0;
        }
        TrafficProfile profile = spec.training();
        long phaseStart = spec.trafficStartMs();
        for (Phase phase : spec.phases()) {
            if (phase.covers(t)) {
                profile = phase.profile();
                phaseStart = phase.fromMs();
            }
        }
        if (!profile.inBurst(t - phaseStart)) {
            return 0;
        }
        double rate = profile.burstBytesPerSec();
        for (Fault fault : spec.faults()) {
            rate *= fault.jobFactor(t) * (portFaults ? fault.portFactor(rank, device, t) : 1.0);
            Long cap = fault.jobRateCap(t);
            if (cap != null) {
                rate = Math.min(rate, cap);
            }
        }
        return rate;
    }

    private boolean running(long t) {
        return t >= spec.trafficStartMs() && (spec.trafficEndMs() == null || t < spec.trafficEndMs());
    }

    private double integrate(int rank, int device, long fromMs, long toMs) {
        double bytes = 0;
        for (long t = fromMs; t < toMs; t += STEP_MS) {
            bytes += instantRate(rank, device, t) * Math.min(STEP_MS, toMs - t) / 1000.0;
        }
        return bytes;
    }

    private static long noisy(double value, SplittableRandom random) {
        if (value <= 0) {
            return 0;
        }
        double factor = Math.max(0.85, Math.min(1.15, 1 + NOISE * random.nextGaussian()));
        return Math.round(value * factor);
    }

    private static long packets(long bytes) {
        return (bytes + MTU_BYTES - 1) / MTU_BYTES;
    }

    private SplittableRandom random(int rank, int device, long fromMs) {
        long h = seed;
        h = h * 0x9E3779B97F4A7C15L + rank;
        h = h * 0x9E3779B97F4A7C15L + device;
        h = h * 0x9E3779B97F4A7C15L + fromMs;
        return new SplittableRandom(h);
    }

    private void checkIndices(int rank, int device) {
        if (rank < 0 || rank >= spec.ranks() || device < 0 || device >= spec.devicesPerRank()) {
            throw new IllegalArgumentException("no rank " + rank + " device " + device + " in a job of "
                    + spec.ranks() + " ranks x " + spec.devicesPerRank() + " devices");
        }
    }
}
