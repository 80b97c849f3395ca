package io.rdmamon.detect;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import io.rdmamon.model.GpuSample;
import io.rdmamon.model.JobRecord;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the GPUs of one job say during its network quiet ({@link StallDetector} asks): the network alone tells a hang
 * from an evaluation pass or a checkpoint only by how long the job was quiet before, the GPUs at once.
 * <ul>
 *   <li>every GPU of the job busy with no memory traffic: every rank waits inside a collective (its NCCL kernel
 *       spins), which only a lost rank or link explains: a hang, flagged after {@code streams.stall.gpu.wait.ms};</li>
 *   <li>some GPUs waiting so, and every other one without a compute process (its rank died), lost (its readings
 *       turned to errors) or with processes that make no progress (stopped, blocked, asleep: no CPU beyond
 *       {@code streams.stall.gpu.process.cpu.cores}, no byte read or written, no memory traffic on the GPU): the
 *       waiting ranks wait for ranks that cannot come, a hang flagged after {@code streams.stall.gpu.wait.ms} too,
 *       naming those ranks;</li>
 *   <li>every GPU the job used without a compute process for {@code streams.stall.gpu.gone.ms}: its ranks exited
 *       while its record still says Running (a command chained after training, an upload, a second run, an elastic
 *       restart in the same pods, or a crash nothing restarted). There is no collective to stall: the learned rule is
 *       held for the rest of the quiet ({@link Verdict#HOLD}), and GPUs that stay empty are {@link GpuIdleDetector}'s
 *       (GPU_IDLE, a warning), not a hang;</li>
 *   <li>anything else (rank 0 evaluating or writing a checkpoint while the others wait in a barrier, a data loader
 *       still reading, a rank stopped outside the GPU on a node whose collector cannot read process activity, a job
 *       without GPU samples): no verdict, the learned-quiet rule decides as before.</li>
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
    static final String RANK_DIED = "rank-died-while-others-wait";
    static final String RANK_STUCK = "rank-stuck-outside-collective";
    private static final long NEVER = Long.MIN_VALUE;

    /**
     * One GPU's latest reading: its time, since when it waits in a collective and since when it has no compute
     * process ({@link #NEVER}: not now), since when its readings are errors and since when its processes make no
     * progress (null: not now; {@code stuckHow} says what they show), and whether the job used it.
     */
    record Gpu(String node, int index, String uuid, List<String> migDevices, long ts, long waitingSince, long goneSince, Long lostSince,
               String error, Long stuckSince, String stuckHow, boolean used) {
        boolean waiting() {
            return waitingSince != NEVER;
        }

        /** Since when the GPU's rank can no longer take part in a collective (died, lost, stuck); null: it can. */
        Long outsideSince() {
            return lostSince != null ? lostSince : goneSince != NEVER ? (Long) goneSince : stuckSince;
        }

        String outsideHow() {
            return lostSince != null ? "is lost (its readings fail: " + error + ")"
                    : goneSince != NEVER ? "has no compute process (its rank died)"
                    : "is stuck outside the collective: " + stuckHow;
        }
    }

    /**
     * The GPUs' word on a quiet: a stall condition, {@link #HOLD} (the ranks exited: no stall to judge, the learned
     * rule waits), or {@link #NONE} (the learned rule decides).
     */
    record Verdict(Condition condition, boolean hold) {
        static final Verdict NONE = new Verdict(null, false);
        static final Verdict HOLD = new Verdict(null, true);
    }

    /** By {@code node/gpu}. */
    private final Map<String, Gpu> gpus = new TreeMap<>();
    /** The newest GPU sample's time: the GPUs' own clock. */
    private long newest = NEVER;
    /** The job's ranks (its record), to name the rank of a GPU. */
    private List<JobRecord.Rank> ranks = List.of();
    /** The last time every GPU of the job had been without a compute process for streams.stall.gpu.gone.ms. */
    private long emptiedAt = NEVER;

    void ranks(List<JobRecord.Rank> jobRanks) {
        this.ranks = List.copyOf(jobRanks);
    }

    void observe(GpuSample g, DetectorConfig cfg) {
        Gpu before = gpus.get(g.key());
        if (before != null && g.ts() <= before.ts()) {
            return; // late: the newer reading stands
        }
        boolean lost = g.error() != null;
        Double util = g.utilizationPercent();
        Double memory = g.memoryUtilizationPercent();
        boolean waiting = !lost && util != null && util >= cfg.stallGpuBusyPercent() && memory != null
                && memory <= cfg.stallGpuMemoryPercent();
        boolean gone = !lost && g.processes() != null && g.processes() == 0;
        // memory traffic is work on the GPU whatever the process shows (an evaluation pass)
        boolean gpuAtWork = memory != null && memory > cfg.stallGpuMemoryPercent();
        String stuckHow = lost || waiting || gone || gpuAtWork ? null
                : ProcessProgress.stuck(g, cfg.stallGpuProcessCpuCores());
        boolean used = before != null && before.used()
                || (g.processes() != null ? g.processes() > 0 : util != null && util > 0);
        // utilization and process activity are shares of the interval: true all of it since the interval began
        long start = g.ts() - g.intervalMs();
        long waitingSince = !waiting ? NEVER
                : before != null && before.waiting() ? before.waitingSince() : start;
        long goneSince = !gone ? NEVER : before != null && before.goneSince() != NEVER ? before.goneSince() : g.ts();
        Long lostSince = !lost ? null : before != null && before.lostSince() != null ? before.lostSince() : g.ts();
        Long stuckSince = stuckHow == null ? null
                : before != null && before.stuckSince() != null ? before.stuckSince() : start;
        gpus.put(g.key(), new Gpu(g.node(), g.gpu(), g.uuid(), g.migDevices(), g.ts(), waitingSince, goneSince, lostSince, g.error(),
                stuckSince, stuckHow, used));
        newest = Math.max(newest, g.ts());
    }

    /**
     * The GPUs' verdict on a network quiet that began at {@code quietSince}, at the job's network time {@code now}.
     *
     * @param nodes    the job's nodes (each must have a fresh GPU of the job)
     * @param jobTitle the job as the alert names it
     */
    Verdict stall(long now, long quietSince, Collection<String> nodes, DetectorConfig cfg, String uid,
                  String jobTitle) {
        List<Gpu> counted = counted(nodes, cfg);
        if (counted == null) {
            return held(quietSince);
        }
        long at = Math.min(now, newest); // what both clocks have seen
        long waitingFrom = NEVER;
        long outsideFrom = NEVER;
        long goneFrom = NEVER;
        boolean allGone = true;
        boolean waitOrOutside = true;
        List<Gpu> waiting = new ArrayList<>();
        List<Gpu> outside = new ArrayList<>();
        for (Gpu gpu : counted) {
            allGone &= gpu.goneSince() != NEVER;
            goneFrom = Math.max(goneFrom, gpu.goneSince());
            if (gpu.waiting()) {
                waiting.add(gpu);
                waitingFrom = Math.max(waitingFrom, gpu.waitingSince());
            } else if (gpu.outsideSince() != null) {
                outside.add(gpu);
                outsideFrom = Math.max(outsideFrom, gpu.outsideSince());
            } else {
                waitOrOutside = false;
            }
        }
        if (allGone && at - goneFrom >= cfg.stallGpuGoneMs()) {
            emptiedAt = Math.max(emptiedAt, at);
        }
        if (waiting.size() == counted.size()) {
            // training looks the same on the GPUs: only the part of the wait inside the network quiet counts
            long since = Math.max(waitingFrom, quietSince);
            if (at - since >= cfg.stallGpuWaitMs()) {
                return new Verdict(inCollective(since, quietSince, at, counted.size(), uid, jobTitle), false);
            }
        } else if (!waiting.isEmpty() && !outside.isEmpty() && waitOrOutside) {
            long since = Math.max(Math.max(waitingFrom, outsideFrom), quietSince);
            if (at - since >= cfg.stallGpuWaitMs()) {
                return new Verdict(waitingForOthers(waiting, outside, since, quietSince, at, uid, jobTitle), false);
            }
        }
        return held(quietSince);
    }

    /** Ranks that exited during this quiet leave no collective to stall, whatever runs (or is seen) after them. */
    private Verdict held(long quietSince) {
        return emptiedAt != NEVER && emptiedAt >= quietSince ? Verdict.HOLD : Verdict.NONE;
    }

    /**
     * Since when every GPU the job used has been without a compute process (when the last one emptied), or null
     * while one has a process, or its GPUs cannot all be seen.
     */
    Long emptySince(Collection<String> nodes, DetectorConfig cfg) {
        List<Gpu> counted = counted(nodes, cfg);
        if (counted == null) {
            return null;
        }
        long since = NEVER;
        for (Gpu gpu : counted) {
            if (gpu.goneSince() == NEVER) {
                return null;
            }
            since = Math.max(since, gpu.goneSince());
        }
        return since;
    }

    /** The newest GPU reading's time, or null before the first. */
    Long newest() {
        return newest == NEVER ? null : newest;
    }

    /** The GPUs of the job that count (used, fresh), or null when there are none or a node of the job has none. */
    private List<Gpu> counted(Collection<String> nodes, DetectorConfig cfg) {
        if (gpus.isEmpty()) {
            return null;
        }
        List<Gpu> counted = new ArrayList<>();
        Set<String> nodesSeen = new HashSet<>();
        for (Gpu gpu : gpus.values()) {
            if (!gpu.used() || newest - gpu.ts() > cfg.stallStaleMs()) {
                continue;
            }
            counted.add(gpu);
            nodesSeen.add(gpu.node());
        }
        return counted.isEmpty() || !nodesSeen.containsAll(nodes) ? null : counted;
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

    /** Some ranks wait in a collective for ranks that died, were lost or are stuck outside it. */
    private Condition waitingForOthers(List<Gpu> waiting, List<Gpu> outside, long since, long quietSince, long at,
                                       String uid, String jobTitle) {
        boolean died = outside.stream().anyMatch(g -> g.lostSince() != null || g.goneSince() != NEVER);
        List<String> rankNumbers = new ArrayList<>();
        List<String> gpuKeys = new ArrayList<>();
        StringBuilder who = new StringBuilder();
        for (Gpu gpu : outside) {
            List<JobRecord.Rank> of = GpuRanks.of(ranks, gpu.node(), gpu.uuid(), gpu.index(), gpu.migDevices());
            rankNumbers.add(GpuRanks.numbers(of));
            gpuKeys.add(GpuSample.key(gpu.node(), gpu.index()));
            who.append(who.isEmpty() ? "" : "; ").append(GpuRanks.describe(of, gpu.node(), gpu.index(), gpu.uuid()))
                    .append(' ').append(gpu.outsideHow());
        }
        String summary = jobTitle + ": RDMA traffic stopped " + (at - quietSince) / 1000 + " s ago; " + who
                + "; while the other " + waiting.size() + " GPUs of the job have been busy with no memory traffic for "
                + (at - since) / 1000 + " s: they wait inside a collective " + (outside.size() == 1 ? "that rank"
                : "those ranks") + " cannot join, a hang that NCCL would end only at its timeout (10 min by "
                + "default). A rank at work (CPU, bytes read or written, memory traffic on its GPU) would leave this "
                + "to the learned rule: rank-0-only evaluations and checkpoints do not fire it";
        Map<String, String> labels = labels(uid, died ? RANK_DIED : RANK_STUCK, at - quietSince,
                waiting.size() + outside.size());
        labels.put("stuckRanks", String.join(",", rankNumbers));
        labels.put("stuckGpus", String.join(",", gpuKeys));
        labels.put("waitingGpus", String.valueOf(waiting.size()));
        return new Condition(quietSince, Condition.CRITICAL, summary, labels);
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
