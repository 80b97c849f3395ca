package io.rdmamon.sim;

/**
 * A fault injected into a {@link TrainingTrafficModel} from {@code atMs} (inclusive) until {@code untilMs} (exclusive,
 * null = for good). Ranks and devices are indices into the job's rank list and each rank's device list. Synchronous
 * training couples the ranks: a fault on one rank or link slows or stops everyone, expressed by {@link #jobFactor}
 * and {@link #stallsJob}.
 */
public sealed interface Fault {

    long atMs();

    Long untilMs();

    default boolean activeAt(long t) {
        return t >= atMs() && (untilMs() == null || t < untilMs());
    }

    /** Rate multiplier for every rank while active: one slow participant slows the whole collective. */
    default double jobFactor(long t) {
        return 1.0;
    }

    /** Whether all ranks are blocked (no gradient traffic anywhere) at {@code t}. */
    default boolean stallsJob(long t) {
        return false;
    }

    /** Extra rate multiplier for one port, on top of {@link #jobFactor}. */
    default double portFactor(int rank, int device, long t) {
        return 1.0;
    }

    /** The port's link rate while active, or null when this fault leaves it at nominal. */
    default Long portRateCap(int rank, int device, long t) {
        return null;
    }

    /** The slowest link rate in the collective while active: a ring moves at its slowest link's pace. */
    default Long jobRateCap(long t) {
        return null;
    }

    default boolean portDown(int rank, int device, long t) {
        return false;
    }

    /** Error events per second this fault adds on the port at {@code t}. */
    default double errorsPerSec(int rank, int device, ErrorKind kind, long t) {
        return 0.0;
    }

    /** Link-down transitions of the port within [from, to). */
    default long linkDownsIn(int rank, int device, long from, long to) {
        return 0;
    }

    /** Share of the rank's gradient traffic that went over the host network instead (NCCL fell back to TCP). */
    default double hostFallbackShare(int rank, long t) {
        return 0.0;
    }

    /** The whole job hangs: every rank quiet (a rank died, a collective deadlocked). */
    record Hang(long atMs, Long untilMs) implements Fault {
        @Override
        public boolean stallsJob(long t) {
            return activeAt(t);
        }
    }

    /** One rank carries only {@code share} of its peers' bytes (part of its traffic rerouted), the job slows. */
    record Straggler(int rank, double share, double slowdown, long atMs, Long untilMs) implements Fault {
        @Override
        public double jobFactor(long t) {
            return activeAt(t) ? slowdown : 1.0;
        }

        @Override
        public double portFactor(int r, int device, long t) {
            return activeAt(t) && r == rank ? share : 1.0;
        }
    }

    /** One rank's RDMA traffic is gone while its peers go on at TCP speed: NCCL fell back to the host network. */
    record MissingRank(int rank, double slowdown, long atMs, Long untilMs) implements Fault {
        @Override
        public double jobFactor(long t) {
            return activeAt(t) ? slowdown : 1.0;
        }

        @Override
        public double portFactor(int r, int device, long t) {
            return activeAt(t) && r == rank ? 0.0 : 1.0;
        }

        @Override
        public double hostFallbackShare(int r, long t) {
            return activeAt(t) && r == rank ? 1.0 : 0.0;
        }
    }

    /**
     * NCCL found no usable RDMA device and runs every collective over sockets on the host network: no rank's RDMA
     * port carries anything while each rank's host interface carries its gradient traffic, capped at TCP speed; the
     * job slows by {@code slowdown}.
     */
    record TcpFallback(double slowdown, long atMs, Long untilMs) implements Fault {
        @Override
        public double jobFactor(long t) {
            return activeAt(t) ? slowdown : 1.0;
        }

        @Override
        public double portFactor(int r, int device, long t) {
            return activeAt(t) ? 0.0 : 1.0;
        }

        @Override
        public double hostFallbackShare(int r, long t) {
            return activeAt(t) ? 1.0 : 0.0;
        }
    }

    /** A lossy link: retransmits and drops, less throughput on the port, a slower job. */
    record DegradedLink(int rank, int device, double throughput, double slowdown, double retransmitsPerSec,
                        double dropsPerSec, long atMs, Long untilMs) implements Fault {
        @Override
        public double jobFactor(long t) {
            return activeAt(t) ? slowdown : 1.0;
        }

        @Override
        public double portFactor(int r, int d, long t) {
            return activeAt(t) && r == rank && d == device ? throughput : 1.0;
        }

        @Override
        public double errorsPerSec(int r, int d, ErrorKind kind, long t) {
            if (!activeAt(t) || r != rank || d != device) {
                return 0.0;
            }
            return switch (kind) {
                case RETRANSMIT -> retransmitsPerSec;
                case DROP -> dropsPerSec;
                default -> 0.0;
            };
        }
    }

    /** The link retrained at a lower speed: its {@code rate} drops and its throughput is capped there. */
    record SpeedDownshift(int rank, int device, long rateBytesPerSec, long atMs, Long untilMs) implements Fault {
        @Override
        public Long portRateCap(int r, int d, long t) {
            return activeAt(t) && r == rank && d == device ? rateBytesPerSec : null;
        }

        @Override
        public Long jobRateCap(long t) {
            return activeAt(t) ? rateBytesPerSec : null;
        }
    }

    /** The link goes down for {@code downMs} every {@code downMs + upMs}; the job blocks while it is down. */
    record LinkFlap(int rank, int device, long downMs, long upMs, long atMs, Long untilMs) implements Fault {
        private boolean downAt(long t) {
            return activeAt(t) && Math.floorMod(t - atMs, downMs + upMs) < downMs;
        }

        @Override
        public boolean stallsJob(long t) {
            return downAt(t);
        }

        @Override
        public boolean portDown(int r, int d, long t) {
            return r == rank && d == device && downAt(t);
        }

        @Override
        public long linkDownsIn(int r, int d, long from, long to) {
            if (r != rank || d != device) {
                return 0;
            }
            long end = untilMs == null ? to : Math.min(to, untilMs);
            long cycle = downMs + upMs;
            long count = 0;
            for (long k = Math.max(0, Math.floorDiv(from - atMs + cycle - 1, cycle)); atMs + k * cycle < end; k++) {
                count++;
            }
            return count;
        }
    }

    /** The link goes down for good (until {@code untilMs}); with {@code stallsJob} the job's collective blocks. */
    record LinkDown(int rank, int device, boolean stallsJob, long atMs, Long untilMs) implements Fault {
        @Override
        public boolean stallsJob(long t) {
            return stallsJob && activeAt(t);
        }

        @Override
        public boolean portDown(int r, int d, long t) {
            return r == rank && d == device && activeAt(t);
        }

        @Override
        public long linkDownsIn(int r, int d, long from, long to) {
            return r == rank && d == device && atMs >= from && atMs < to ? 1 : 0;
        }
    }
}
