package io.rdmamon.detect;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import io.rdmamon.model.GpuSample;

import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the GPUs of one job say during its network quiet ({@link StallDetector} asks): the network alone tells a hang
 * from an evaluation pass or a checkpoint only by how long the job was quiet before, the GPUs at once.
 * <ul>
 *   <li>every GPU of the job busy with no memory traffic: every rank waits inside a collective (its NCCL kernel
 *       spins), which only a lost rank or link explains: a hang, flagged after {@code streams.stall.gpu.wait.ms};</li>
 *   <li>every GPU the job used without a compute process: its ranks exited (a crash) while its record still says
 *       Running, flagged after {@code streams.stall.gpu.gone.ms};</li>
 *   <li>anything else (rank 0 evaluating or writing a checkpoint while the others wait in a barrier, a rank stopped
 *       outside the GPU, a job without GPU samples): no verdict, the learned-quiet rule decides as before.</li>
 * </ul>
 * Only GPUs the job used count (a process on it, or some utilization when processes are not reported): an idle GPU
 * of a node the job holds only in part is not one of its ranks'. A GPU whose samples stopped counts no longer
 * ({@code streams.stall.stale.ms}), and a node of the job without a fresh GPU of the job leaves the GPUs without a
 * verdict: a rank not seen cannot be said to wait.
 */
@JsonAutoDetect(fieldVisibility = Visibility.ANY, getterVisibility = Visibility.NONE,
        isGetterVisibility = Visibility.NONE)
final class GpuActivity {
    /** Why the GPUs say the job stalled: the alert's {@code evidence} label. */
    static final String IN_COLLECTIVE = "gpus-waiting-in-collective";
    static final String PROCESSES_GONE = "gpu-processes-gone";
    private static final long NEVER = Long.MIN_VALUE;

    /**
     * One GPU's latest reading: its time, since when it waits in a collective and since when it has no compute
     * process ({@link #NEVER}: not now), and whether the job used it.
     */
    record Gpu(String node, long ts, long waitingSince, long goneSince, boolean used) {
    }

    /** By {@code node/gpu}. */
    private final Map<String, Gpu> gpus = new TreeMap<>();
    /** The newest GPU sample's time: the GPUs' own clock. */
    private long newest = NEVER;

    void observe(GpuSample g, DetectorConfig cfg) {
        Gpu before = gpus.get(g.key());
        if (before != null && g.ts() <= before.ts()) {
            return; // late: the newer reading stands
        }
        Double util = g.utilizationPercent();
        Double memory = g.memoryUtilizationPercent();
        boolean waiting = util != null && util >= cfg.stallGpuBusyPercent() && memory != null
                && memory <= cfg.stallGpuMemoryPercent();
        boolean gone = g.processes() != null && g.processes() == 0;
        boolean used = before != null && before.used()
                || (g.processes() != null ? g.processes() > 0 : util != null && util > 0);
        // utilization is a share of the interval: a GPU busy all of it has waited since the interval began
        long waitingSince = !waiting ? NEVER
                : before != null && before.waitingSince() != NEVER ? before.waitingSince() : g.ts() - g.intervalMs();
        long goneSince = !gone ? NEVER : before != null && before.goneSince() != NEVER ? before.goneSince() : g.ts();
        gpus.put(g.key(), new Gpu(g.node(), g.ts(), waitingSince, goneSince, used));
        newest = Math.max(newest, g.ts());
    }

    /**
     * The GPUs' verdict on a network quiet that began at {@code quietSince}, at the job's network time {@code now}:
     * a stall condition, or null when they say nothing (then the learned-quiet rule decides).
     *
     * @param nodes    the job's nodes (each must have a fresh GPU of the job)
     * @param jobTitle the job as the alert names it
     */
    Condition stall(long now, long quietSince, Collection<String> nodes, DetectorConfig cfg, String uid,
                    String jobTitle) {
        if (gpus.isEmpty()) {
            return null;
        }
        long at = Math.min(now, newest); // what both clocks have seen
        long waitingFrom = NEVER;
        long goneFrom = NEVER;
        long goneFirst = Long.MAX_VALUE;
        int counted = 0;
        boolean allWaiting = true;
        boolean allGone = true;
        Set<String> nodesSeen = new HashSet<>();
        for (Gpu gpu : gpus.values()) {
            if (!gpu.used() || newest - gpu.ts() > cfg.stallStaleMs()) {
                continue;
            }
            counted++;
            nodesSeen.add(gpu.node());
            allWaiting &= gpu.waitingSince() != NEVER;
            allGone &= gpu.goneSince() != NEVER;
            waitingFrom = Math.max(waitingFrom, gpu.waitingSince());
            goneFrom = Math.max(goneFrom, gpu.goneSince());
            goneFirst = Math.min(goneFirst, gpu.goneSince());
        }
        if (counted == 0 || !nodesSeen.containsAll(nodes)) {
            return null;
        }
        if (allWaiting) {
            // training looks the same on the GPUs: only the part of the wait inside the network quiet counts
            long since = Math.max(waitingFrom, quietSince);
            return at - since >= cfg.stallGpuWaitMs() ? inCollective(since, quietSince, at, counted, uid, jobTitle)
                    : null;
        }
        if (allGone && at - goneFrom >= cfg.stallGpuGoneMs()) {
            return processesGone(Math.max(goneFirst, quietSince), at, counted, uid, jobTitle);
        }
        return null;
    }

    private static Condition inCollective(long waitingSince, long quietSince, long at, int gpus, String uid,
                                          String jobTitle) {
        String summary = jobTitle + ": RDMA traffic stopped " + (at - quietSince) / 1000 + " s ago and every one of "
                + "its " + gpus + " GPUs has been busy with no memory traffic for " + (at - waitingSince) / 1000
                + " s since: its ranks are waiting inside a collective that cannot complete (a rank or its link was "
                + "lost, or one rank stopped with its NCCL kernel launched). Evaluation passes, checkpoints and "
                + "data-loader stalls leave some GPU outside the collective, so this is a hang whatever pauses the "
                + "job had before";
        return new Condition(quietSince, Condition.CRITICAL, summary, labels(uid, IN_COLLECTIVE, at - quietSince,
                gpus));
    }

    private static Condition processesGone(long since, long at, int gpus, String uid, String jobTitle) {
        String summary = jobTitle + ": none of its " + gpus + " GPUs has had a compute process for "
                + (at - since) / 1000 + " s and its RDMA traffic stopped, while the job's record still says Running: "
                + "its ranks exited (a crash, an OOM kill) and nothing restarted them";
        return new Condition(since, Condition.CRITICAL, summary, labels(uid, PROCESSES_GONE, at - since, gpus));
    }

    private static Map<String, String> labels(String uid, String evidence, long quietMs, int gpus) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("uid", uid);
        labels.put("evidence", evidence);
        labels.put("quietSeconds", String.valueOf(quietMs / 1000));
        labels.put("gpus", String.valueOf(gpus));
        return labels;
    }
}
