package io.rdmamon.scenario;

import java.util.List;

/**
 * Ground truth for a hang where some ranks wait inside a collective and the others are stuck outside it (stopped,
 * blocked on a read that never returns), read from what the recording shows, not from how the hang was caused: over
 * {@link #LOOK_MS}, at least one rank's GPU waits (busy, no memory traffic) and every other rank's GPU processes made
 * no progress (CPU below {@link #CPU_FLOOR_CORES}, no byte read or written, or stopped). The issue-49 rule flags that
 * within {@link TraceImporter#GPU_HANG_DEADLINE_MS}; the peers may first finish what they were doing (an evaluation
 * pass), so the deadline runs from when the picture first holds.
 */
final class StuckRanks {
    static final long LOOK_MS = 3_000;
    /** Measured: a stopped or blocked rank 0.00-0.02 cores, a data loader starving on throttled reads 0.05-0.06. */
    static final double CPU_FLOOR_CORES = 0.05;
    /** How long after the incident the picture may take to form (the peers finishing an evaluation or a write). */
    private static final long SEARCH_MS = 30_000;
    private static final long STEP_MS = 100;
    static final String STUCK_NOTE = "the other ranks wait in a collective while its processes make no progress";

    private StuckRanks() {
    }

    static boolean someWaitOthersStuck(NcclTrace trace, String job, long fromMs) {
        return onset(trace, job, fromMs) != null;
    }

    /** The first instant from {@code fromMs} at which the picture holds over the next {@link #LOOK_MS}, or null. */
    static Long onset(NcclTrace trace, String job, long fromMs) {
        TraceProcesses processes = new TraceProcesses(trace);
        List<NcclTrace.RankKey> ranks = trace.ranks(job);
        for (long t = fromMs; t <= fromMs + SEARCH_MS && t + LOOK_MS <= trace.meta().durationMs(); t += STEP_MS) {
            int waiting = 0;
            boolean holds = true;
            for (NcclTrace.RankKey rank : ranks) {
                if (TraceImporter.gpuWaits(trace, rank, t)) {
                    waiting++;
                } else if (!stuck(processes.over(rank, t, t + LOOK_MS))) {
                    holds = false;
                    break;
                }
            }
            if (holds && waiting > 0 && waiting < ranks.size()) {
                return t;
            }
        }
        return null;
    }

    private static boolean stuck(TraceProcesses.Activity a) {
        if (a == null || a.cpuCores() == null) {
            return false; // no GPU process to judge (a dead rank is the issue-48 rule's)
        }
        if (a.states().equals("T")) {
            return true;
        }
        boolean noBytes = a.readBytesPerSec() != null && a.readBytesPerSec() == 0 && a.writeBytesPerSec() == 0;
        return noBytes && a.cpuCores() < CPU_FLOOR_CORES;
    }
}
