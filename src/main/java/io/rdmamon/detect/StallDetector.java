package io.rdmamon.detect;

import io.rdmamon.detect.StallState.Phase;
import io.rdmamon.jobs.JobEvent;
import io.rdmamon.jobs.JobSample;
import io.rdmamon.jobs.PortTraffic;
import io.rdmamon.jobs.SocketPorts;
import io.rdmamon.model.Alert;
import io.rdmamon.model.GpuSample;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.JobRecord;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * STALLED_SYNC: a Running job whose RDMA traffic collapsed on (nearly) all its ports for much longer than its own
 * normal quiet gaps. Synchronous training goes quiet on every rank within about a second when one rank stops, so the
 * job-wide silence is the signal; it is read per second (bucket) from the job's exclusive ports.
 *
 * <p>Phases: STARTING (until {@code streams.stall.warmup.ms} after the first traffic and
 * {@code streams.stall.warmup.active.ms} of traffic) → ACTIVE → SUSPECT (quiet beyond a normal gap) → STALLED
 * (quiet ≥ threshold = {@code pause.multiplier} × the longest quiet the job resumed from by itself, within
 * [{@code min.quiet}, {@code max.quiet}]). Every quiet the job came back from counts alike, whether it was a gap
 * between bursts, an evaluation pass, a checkpoint or a data-loader stall, and whether it came during warm-up or
 * later ({@link QuietHistory}). It never fires:
 * <ul>
 *   <li>at job start (STARTING), nor after the job ended (its record says Succeeded/Failed/Deleted: open incidents
 *       resolve at {@code updatedAt}, later samples no longer join the job);</li>
 *   <li>during a checkpoint or data-loading pause: a host interface of the job's nodes busy while RDMA is quiet
 *       restarts the quiet clock;</li>
 *   <li>during a quiet no longer than {@code pause.multiplier} × the longest quiet the job resumed from by itself
 *       (only a quiet longer than every earlier one may fire, and the alert says so);</li>
 *   <li>when collectors went silent: a node whose samples stopped around the quiet makes it unknown, not quiet;</li>
 *   <li>from estimates: ports of devices shared with another Running job are not used at all.</li>
 * </ul>
 * Where the job's GPUs report (rdma.gpu-samples), they can say more during a quiet ({@link GpuActivity}): every GPU
 * waiting inside a collective is a hang after {@code streams.stall.gpu.wait.ms}, whatever quiets came before, and so
 * is some GPUs waiting so while each other one's rank died, was lost or is stuck outside the collective; every GPU
 * without its processes while the job is still Running means its ranks exited, which holds the rule above for the
 * rest of the quiet (GPU_IDLE reports GPUs left empty). Otherwise the rule above decides.
 * A restarted job (other pods) starts over in STARTING.
 *
 * <p>Arrival order: samples come out of order and late (a busy broker delivers some 1.5 s late). What the job learns
 * depends on its traffic, never on the order it arrived in: the job's activity is read per second
 * ({@link JobSeconds}), a second is settled once the job's newest sample is {@code streams.stall.lateness.ms} (2 s)
 * past its end, and quiets are learned (and the warm-up counted) from settled seconds only, so the same samples in
 * any order within that lateness teach the same quiets, and a sample later still is dropped: it can neither shorten
 * nor remove a quiet the job resumed from. A stall does not wait for seconds to settle: a quiet is judged at once on
 * what the ports heard so far say. It resolves once a second with traffic after it is settled, at the job's first
 * traffic in it.
 */
public final class StallDetector implements Detector<JobEvent, StallState> {
    private static final double HOST_ALPHA = 0.1;
    private static final long FORGET_ENDED_MS = 3_600_000;
    private static final long FORGET_SILENT_MS = 86_400_000;

    private final DetectorConfig cfg;

    public StallDetector(DetectorConfig cfg) {
        this.cfg = cfg;
    }

    @Override
    public String type() {
        return Alert.STALLED_SYNC;
    }

    @Override
    public Class<StallState> stateType() {
        return StallState.class;
    }

    @Override
    public Result<StallState> inspect(StallState state, JobEvent event, long ts) {
        if (event.lifecycle() != null) {
            return lifecycle(state, event.lifecycle());
        }
        if (state != null && state.phase == Phase.ENDED) {
            return null;
        }
        if (event.host() != null) {
            return state == null ? null : host(state, event.host());
        }
        if (event.gpu() != null) {
            return state == null ? null : gpu(state, event.gpu());
        }
        return port(state == null ? StallState.of(event.port().holder()) : state, event.port(), ts);
    }

    @Override
    public Result<StallState> expire(StallState s, long streamTime) {
        if (s.phase == Phase.ENDED && streamTime - s.endedAt > FORGET_ENDED_MS) {
            return Result.of(null);
        }
        if (s.phase != Phase.ENDED && s.now > 0 && streamTime - s.now > FORGET_SILENT_MS) {
            return new Result<>(null, List.of(), s.now);
        }
        return null;
    }

    private Result<StallState> lifecycle(StallState state, JobRecord job) {
        if (JobLifecycle.ended(job)) {
            if (state == null || state.phase == Phase.ENDED) {
                return null;
            }
            state.phase = Phase.ENDED;
            state.endedAt = job.updatedAt();
            return Result.closeAll(state, job.updatedAt());
        }
        if (!JobRecord.RUNNING.equals(job.state())) {
            return null;
        }
        boolean restarted = state != null && JobLifecycle.restarted(job,
                state.phase == Phase.ENDED ? state.endedAt : null, state.generation);
        StallState next = state == null || restarted ? StallState.of(job.uid(), job.job(), job.namespace()) : state;
        next.generation = JobLifecycle.generation(job);
        next.gpus.ranks(job.ranks());
        next.socket = SocketPorts.intended(job);
        next.job = job.job();
        next.namespace = job.namespace();
        return restarted ? Result.closeAll(next, job.updatedAt()) : Result.of(next);
    }

    private Result<StallState> host(StallState s, HostIfaceSample h) {
        if (h.txBytesPerSec() == null || h.rxBytesPerSec() == null) {
            return Result.of(s);
        }
        double rate = h.txBytesPerSec() + h.rxBytesPerSec();
        Double usual = s.hostBaseline.get(h.key());
        boolean rdmaQuiet = s.lastActiveAt != null && h.ts() - s.lastActiveAt > quietGap(s);
        if (!rdmaQuiet) {
            s.hostBaseline.put(h.key(), usual == null ? rate : usual + HOST_ALPHA * (rate - usual));
        } else if (rate >= cfg.stallHostMinBytesPerSec() && (usual == null || rate >= cfg.stallHostRiseFactor()
                * usual)) {
            List<Observation> observations = new ArrayList<>();
            onHostTraffic(s, h.ts(), observations);
            return Result.of(s, observations);
        }
        return Result.of(s);
    }

    private Result<StallState> gpu(StallState s, GpuSample g) {
        s.gpus.observe(g, cfg);
        if (s.lastActiveAt == null) {
            return Result.of(s);
        }
        List<Observation> observations = new ArrayList<>();
        evaluate(s, observations);
        return Result.of(s, observations);
    }

    /**
     * A host interface of the job busy while RDMA is quiet: storage during a checkpoint, or the job's own collectives
     * after a fallback to sockets. Either restarts the quiet clock. When eth0 carried the job on both sides of a quiet
     * (after a fallback RDMA never comes back), the job resumed from that quiet on eth0: it is learned like one that
     * ended on RDMA, measured the same way (from the last sample with traffic to the first one after), and a stall
     * that was measured on eth0 resolves.
     */
    private void onHostTraffic(StallState s, long ts, List<Observation> observations) {
        Long previous = s.hostHintAt;
        if (previous != null && ts <= previous) {
            return;
        }
        s.hostHintAt = ts;
        if (previous == null || previous <= s.lastActiveAt || ts - previous <= quietGap(s)) {
            return;
        }
        learnQuiet(s, previous, ts - previous);
        if (s.phase == Phase.STALLED && s.stalledSince != null && s.stalledSince >= previous) {
            observations.add(Observation.cleared(s.subject(), ts));
            s.stalledSince = null;
            s.phase = Phase.ACTIVE;
        }
    }

    private Result<StallState> port(StallState s, JobSample js, long ts) {
        PortTraffic p = js.traffic();
        s.nodeLastSeen.merge(p.node(), ts, Math::max);
        if (js.shared() || p.txBytesPerSec() == null || p.rxBytesPerSec() == null) {
            return Result.of(s);
        }
        s.now = Math.max(s.now, ts);
        List<Observation> observations = new ArrayList<>();
        for (JobSeconds.Verdict settled : s.seconds.settle(s.now, cfg.stallLatenessMs(),
                cfg.stallQuietPortsFraction())) {
            onSettled(s, settled, observations);
        }
        if (JobSeconds.settled(ts, s.now, cfg.stallLatenessMs())) {
            // later than the lateness the app accepts: its second's verdict, and what was learned from it, stand
            return Result.of(s, observations);
        }
        double rate = p.txBytesPerSec() + p.rxBytesPerSec();
        s.seconds.count(ts, rate, rate >= quietFloor(s, ts), p.intervalMs());
        Long lastActiveAt = s.settledActiveAt;
        for (JobSeconds.Verdict open : s.seconds.open(cfg.stallQuietPortsFraction())) {
            if (open.jobActive()) {
                lastActiveAt = open.second().lastActiveAt();
            }
        }
        s.lastActiveAt = lastActiveAt;
        evaluate(s, observations);
        return Result.of(s, observations);
    }

    /**
     * A second is settled: what it says is final. A second with traffic after a quiet longer than a gap between
     * samples ends that quiet, which is learned from the job's last traffic before it to its first one in this second.
     */
    private void onSettled(StallState s, JobSeconds.Verdict settled, List<Observation> observations) {
        JobSeconds.Second second = settled.second();
        if (second.intervalMs() > 0) {
            s.intervalMs = second.intervalMs();
        }
        if (!settled.jobActive()) {
            return;
        }
        if (s.firstTrafficAt == null) {
            s.firstTrafficAt = second.firstActiveAt();
        }
        if (s.settledActiveAt != null) {
            long gap = second.firstActiveAt() - s.settledActiveAt;
            if (gap > quietGap(s)) {
                learnQuiet(s, s.settledActiveAt, gap);
            }
            s.activeMs += Math.min(second.lastActiveAt() - s.settledActiveAt, s.intervalMs);
        }
        s.settledActiveAt = second.lastActiveAt();
        resume(s, second, observations);
    }

    /**
     * Traffic in a settled {@code second} after the quiet that fired: the stall resolves at the job's first traffic
     * after it. Not on what an open second says so far: more samples may yet show the job quiet in it, and a stall
     * resolved on them would fire again, or, as one incident, stay resolved through a hang.
     */
    private void resume(StallState s, JobSeconds.Second second, List<Observation> observations) {
        if (s.phase != Phase.STALLED || s.stalledSince == null || second.lastActiveAt() <= s.stalledSince) {
            return;
        }
        observations.add(Observation.cleared(s.subject(), Math.max(second.firstActiveAt(), s.stalledSince)));
        s.stalledSince = null;
        s.phase = Phase.ACTIVE;
    }

    /**
     * A quiet period ended: the job resumed from it by itself, and it bounds what later quiet is its own. Early in the
     * warm-up, before the job has shown some traffic, only a quiet with storage traffic counts: the setup after NCCL
     * init is no quiet of the training's.
     */
    private void learnQuiet(StallState s, long start, long length) {
        boolean hinted = s.hostHintAt != null && s.hostHintAt >= start;
        // so little traffic is still warm-up (STARTING ends only after twice as much), read from settled seconds alone
        if (!hinted && s.activeMs < cfg.stallWarmupActiveMs() / 2) {
            return;
        }
        s.history.add(start, length);
    }

    private void evaluate(StallState s, List<Observation> observations) {
        if (s.phase == Phase.STARTING) {
            boolean warm = s.firstTrafficAt != null && s.now - s.firstTrafficAt >= cfg.stallWarmupMs()
                    && s.activeMs >= cfg.stallWarmupActiveMs();
            if (!warm) {
                return;
            }
            s.phase = Phase.ACTIVE;
        }
        if (s.phase == Phase.STALLED) {
            return;
        }
        long quietFor = s.now - s.lastActiveAt;
        if (quietFor <= quietGap(s)) {
            s.phase = Phase.ACTIVE;
            return;
        }
        // the GPUs know at once where the network knows only how long the job was quiet before (GpuActivity)
        GpuActivity.Verdict gpus = s.gpus.stall(s.now, s.lastActiveAt, s.nodeLastSeen.keySet(), cfg, s.uid,
                title(s));
        if (gpus.condition() != null) {
            s.phase = Phase.STALLED;
            s.stalledSince = gpus.condition().since();
            observations.add(Observation.holds(s.subject(), gpus.condition(), s.now));
            return;
        }
        if (gpus.hold()) {
            // the ranks exited during this quiet: no collective to stall (GPU_IDLE reports GPUs left empty)
            s.phase = Phase.SUSPECT;
            return;
        }
        long since = s.hostHintAt != null && s.hostHintAt > s.lastActiveAt ? s.hostHintAt : s.lastActiveAt;
        long threshold = threshold(s);
        // quiet since the job's last traffic anywhere: once its collectives moved to eth0 (a TCP fallback), RDMA stays
        // quiet for good and the host interfaces are where a pause, or a hang, shows
        if (s.now - since < threshold || collectorsSilent(s)) {
            s.phase = Phase.SUSPECT;
            return;
        }
        s.phase = Phase.STALLED;
        s.stalledSince = since;
        observations.add(Observation.holds(s.subject(), condition(s, since, threshold), s.now));
    }

    private Condition condition(StallState s, long since, long threshold) {
        QuietHistory.Quiet longest = s.history.longest();
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("uid", s.uid);
        labels.put("quietSeconds", String.valueOf((s.now - since) / 1000));
        labels.put("thresholdSeconds", String.valueOf(threshold / 1000));
        labels.put("longestQuietMs", longest == null ? "none" : String.valueOf(longest.length()));
        if (longest != null) {
            labels.put("longestQuietAt", Instant.ofEpochMilli(longest.start()).toString());
        }
        labels.put("nodes", String.valueOf(s.nodeLastSeen.size()));
        String summary = "job " + s.job + (s.namespace == null ? "" : " (" + s.namespace + ")")
                + ": RDMA traffic stopped on (nearly) all its ports for " + (s.now - since) / 1000 + " s (threshold "
                + threshold / 1000 + " s): gradient sync looks stalled. "
                + (longest == null ? "The job has not been quiet for more than " + quietGap(s) / 1000 + " s before"
                        : "The longest quiet it resumed from by itself lasted " + String.format(java.util.Locale.ROOT,
                        "%.1f", longest.length() / 1000.0) + " s (from " + Instant.ofEpochMilli(longest.start())
                        + "); this one is longer than " + cfg.stallPauseMultiplier() + " x that")
                + ". If it is an evaluation pass, a checkpoint or a data-loader stall, the alert resolves when the job"
                + " resumes, and later quiets up to " + cfg.stallPauseMultiplier() + " x its length stay silent";
        return new Condition(since, Condition.CRITICAL, summary, labels);
    }

    private static String title(StallState s) {
        return "job " + s.job + (s.namespace == null ? "" : " (" + s.namespace + ")");
    }

    /** The job's own stall threshold: a multiple of the longest quiet it resumed from, within [min.quiet, max.quiet]. */
    private long threshold(StallState s) {
        return s.history.threshold(cfg.stallPauseMultiplier(), cfg.stallMinQuietMs(), cfg.stallMaxQuietMs());
    }

    /** Quiet shorter than this is just the space between two samples with traffic. */
    private static long quietGap(StallState s) {
        return Math.max(2 * JobSeconds.SECOND_MS, s.intervalMs * 3 / 2);
    }

    /**
     * Below this a port is quiet: the absolute floor, or a fraction of the job's usual rate; a larger fraction for a
     * socket job's port, a host interface whose other traffic (data loading, logs, metrics) is no sign of the job's.
     */
    private double quietFloor(StallState s, long ts) {
        double fraction = s.socket ? cfg.stallSocketQuietFraction() : cfg.stallQuietBaselineFraction();
        Double usual = s.seconds.baselineAt(ts, cfg.stallLatenessMs());
        double relative = usual == null ? 0 : fraction * usual;
        return Math.max(cfg.stallQuietBytesPerSec(), relative);
    }

    /** A node of the job whose samples stopped after (or shortly before) the job went quiet. */
    private boolean collectorsSilent(StallState s) {
        for (long last : s.nodeLastSeen.values()) {
            if (s.now - last > cfg.stallStaleMs() && last >= s.lastActiveAt - cfg.stallStaleMs()) {
                return true;
            }
        }
        return false;
    }
}
