package io.rdmamon.detect;

import io.rdmamon.detect.StallState.Phase;
import io.rdmamon.jobs.JobEvent;
import io.rdmamon.jobs.JobSample;
import io.rdmamon.jobs.PortTraffic;
import io.rdmamon.model.Alert;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.JobRecord;

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
 * (quiet ≥ threshold = max({@code min.quiet}, {@code gap.multiplier} × the {@code gap.quantile} of learned gaps),
 * at most {@code max.quiet}). It never fires:
 * <ul>
 *   <li>at job start (STARTING), nor after the job ended (its record says Succeeded/Failed/Deleted: open incidents
 *       resolve at {@code updatedAt}, later samples no longer join the job);</li>
 *   <li>during a checkpoint or data-loading pause: a host interface of the job's nodes busy while RDMA is quiet
 *       restarts the quiet clock;</li>
 *   <li>during a quiet no longer than {@code pause.multiplier} × the longest pause the job resumed from by itself
 *       (an evaluation pass or checkpoint: the first such pause may fire, the alert says so; the later ones do
 *       not);</li>
 *   <li>when collectors went silent: a node whose samples stopped around the quiet makes it unknown, not quiet;</li>
 *   <li>from estimates: ports of devices shared with another Running job are not used at all.</li>
 * </ul>
 * A restarted job (other pods) starts over in STARTING.
 */
public final class StallDetector implements Detector<JobEvent, StallState> {
    static final long BUCKET_MS = 1_000;
    /** Gaps this long recur at least this often in a warm-up when they are the job's rhythm. */
    static final int RECURRING_GAPS = 3;
    private static final double BASELINE_ALPHA = 0.05;
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
            return state == null ? null : Result.of(host(state, event.host()));
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
        next.job = job.job();
        next.namespace = job.namespace();
        return restarted ? Result.closeAll(next, job.updatedAt()) : Result.of(next);
    }

    private StallState host(StallState s, HostIfaceSample h) {
        if (h.txBytesPerSec() == null || h.rxBytesPerSec() == null) {
            return s;
        }
        double rate = h.txBytesPerSec() + h.rxBytesPerSec();
        Double usual = s.hostBaseline.get(h.key());
        boolean rdmaQuiet = s.lastActiveAt != null && h.ts() - s.lastActiveAt > quietGap(s);
        if (!rdmaQuiet) {
            s.hostBaseline.put(h.key(), usual == null ? rate : usual + HOST_ALPHA * (rate - usual));
        } else if (rate >= cfg.stallHostMinBytesPerSec() && (usual == null || rate >= cfg.stallHostRiseFactor()
                * usual)) {
            s.hostHintAt = s.hostHintAt == null ? h.ts() : Math.max(s.hostHintAt, h.ts());
        }
        return s;
    }

    private Result<StallState> port(StallState s, JobSample js, long ts) {
        PortTraffic p = js.traffic();
        s.nodeLastSeen.merge(p.node(), ts, Math::max);
        if (js.shared() || p.txBytesPerSec() == null || p.rxBytesPerSec() == null) {
            return Result.of(s);
        }
        if (p.intervalMs() > 0) {
            s.intervalMs = p.intervalMs();
        }
        s.now = Math.max(s.now, ts);
        double rate = p.txBytesPerSec() + p.rxBytesPerSec();
        boolean portActive = rate >= quietFloor(s);
        if (portActive) {
            s.portBaseline = s.portBaseline == null ? rate : s.portBaseline + BASELINE_ALPHA * (rate - s.portBaseline);
        }
        List<Observation> observations = new ArrayList<>();
        if (countInBucket(s, ts, portActive)) {
            onTraffic(s, ts, observations);
        }
        evaluate(s, observations);
        return Result.of(s, observations);
    }

    /** Counts the port in its second; true when the job as a whole has traffic in that second. */
    private boolean countInBucket(StallState s, long ts, boolean portActive) {
        long bucket = ts - Math.floorMod(ts, BUCKET_MS);
        if (bucket < s.bucketStart) {
            // late for its second: on its own it can only say that traffic flowed then
            return portActive;
        }
        if (bucket > s.bucketStart) {
            if (s.bucketReporting > 0) {
                s.prevBucketReporting = s.bucketReporting;
            }
            s.bucketStart = bucket;
            s.bucketReporting = 0;
            s.bucketActive = 0;
        }
        s.bucketReporting++;
        if (portActive) {
            s.bucketActive++;
        }
        int reporting = Math.max(s.bucketReporting, s.prevBucketReporting);
        return portActive && s.bucketActive > (1 - cfg.stallQuietPortsFraction()) * reporting + 1e-9;
    }

    private void onTraffic(StallState s, long ts, List<Observation> observations) {
        if (s.firstTrafficAt == null) {
            s.firstTrafficAt = ts;
        }
        if (s.lastActiveAt != null && ts <= s.lastActiveAt) {
            // late news (a node's pass that arrived after others' next pass): it changes nothing now, but traffic
            // inside the gap just learned means that gap was shorter, whichever node's sample came first
            if (s.lastGapStart != null && ts > s.lastGapStart) {
                s.history.shortenLastGap(ts - s.lastGapStart, quietGap(s));
            }
            return;
        }
        if (s.lastActiveAt != null) {
            long gap = ts - s.lastActiveAt;
            if (gap > quietGap(s)) {
                s.lastGapStart = learnQuiet(s, s.lastActiveAt, gap) ? s.lastActiveAt : null;
            }
            s.activeMs += Math.min(gap, s.intervalMs);
        }
        s.lastActiveAt = ts;
        if (ts < s.now - quietGap(s)) {
            // traffic seen only now from a lagging port: it moves the quiet's start, it does not end a stall
            return;
        }
        if (s.phase == Phase.STALLED) {
            observations.add(Observation.cleared(s.subject(), ts));
            s.stalledSince = null;
        }
        if (s.phase == Phase.STALLED || s.phase == Phase.SUSPECT) {
            s.phase = Phase.ACTIVE;
        }
    }

    /**
     * A quiet period ended. While the job warms up every gap is its pattern (once it has shown some traffic: the setup
     * after NCCL init would teach the wrong threshold); later, a gap that outlasted the threshold, or one with
     * storage traffic, is a pause (checkpoint, evaluation) and the rest are ordinary gaps. True when it was learned
     * as a gap.
     */
    private boolean learnQuiet(StallState s, long start, long length) {
        boolean hinted = s.hostHintAt != null && s.hostHintAt >= start;
        if (hinted || s.phase != Phase.STARTING && length >= threshold(s)) {
            s.history.addPause(start, length);
        } else if (s.activeMs >= cfg.stallWarmupActiveMs() / 2) {
            s.history.addGap(length);
            return true;
        }
        return false;
    }

    private void evaluate(StallState s, List<Observation> observations) {
        if (s.phase == Phase.STARTING) {
            boolean warm = s.firstTrafficAt != null && s.now - s.firstTrafficAt >= cfg.stallWarmupMs()
                    && s.activeMs >= cfg.stallWarmupActiveMs();
            if (!warm) {
                return;
            }
            s.phase = Phase.ACTIVE;
            // a long quiet seen once or twice while warming up was an evaluation pass or checkpoint, not the job's
            // rhythm: as a gap it would set a threshold of three times its length
            s.history.pausesFromRareGaps(cfg.stallMinQuietMs(), RECURRING_GAPS);
        }
        if (s.phase == Phase.STALLED) {
            return;
        }
        long quietFor = s.now - s.lastActiveAt;
        if (quietFor <= quietGap(s)) {
            s.phase = Phase.ACTIVE;
            return;
        }
        long since = s.hostHintAt != null && s.hostHintAt > s.lastActiveAt ? s.hostHintAt : s.lastActiveAt;
        long threshold = threshold(s);
        // quiet since the job's last traffic anywhere: once its collectives moved to eth0 (a TCP fallback), RDMA stays
        // quiet for good and the host interfaces are where a pause, or a hang, shows
        if (s.now - since < threshold || collectorsSilent(s)
                || s.history.excusedAsPause(s.now - since, cfg.stallPauseMultiplier())) {
            s.phase = Phase.SUSPECT;
            return;
        }
        s.phase = Phase.STALLED;
        s.stalledSince = since;
        observations.add(Observation.holds(s.subject(), condition(s, since, threshold), s.now));
    }

    private Condition condition(StallState s, long since, long threshold) {
        Long normalGap = s.history.gapQuantile(cfg.stallGapQuantile());
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("uid", s.uid);
        labels.put("quietSeconds", String.valueOf((s.now - since) / 1000));
        labels.put("thresholdSeconds", String.valueOf(threshold / 1000));
        labels.put("normalGapMs", normalGap == null ? "sub-interval" : String.valueOf(normalGap));
        labels.put("nodes", String.valueOf(s.nodeLastSeen.size()));
        long longestPause = s.history.longestPause();
        labels.put("longestPauseMs", String.valueOf(longestPause));
        String summary = "job " + s.job + (s.namespace == null ? "" : " (" + s.namespace + ")")
                + ": RDMA traffic stopped on (nearly) all its ports for " + (s.now - since) / 1000 + " s; its normal"
                + " gaps are " + (normalGap == null ? "under the sampling interval" : normalGap + " ms")
                + " (threshold " + threshold / 1000 + " s): gradient sync looks stalled"
                + (longestPause == 0 ? ". The job has not paused this long before: if this is an evaluation pass or a"
                        + " checkpoint, the alert resolves when it resumes, and its later pauses of this length stay"
                        + " silent"
                        : ", longer than " + cfg.stallPauseMultiplier() + " x the longest pause it resumed from by"
                        + " itself (" + String.format(java.util.Locale.ROOT, "%.1f", longestPause / 1000.0) + " s)");
        return new Condition(since, Condition.CRITICAL, summary, labels);
    }

    /** The job's own stall threshold: a multiple of its normal gaps, within [min.quiet, max.quiet]. */
    private long threshold(StallState s) {
        Long gap = s.history.gapQuantile(cfg.stallGapQuantile());
        long learned = gap == null ? 0 : Math.round(cfg.stallGapMultiplier() * gap);
        return Math.min(cfg.stallMaxQuietMs(), Math.max(cfg.stallMinQuietMs(), learned));
    }

    /** Quiet shorter than this is just the space between two samples with traffic. */
    private static long quietGap(StallState s) {
        return Math.max(2 * BUCKET_MS, s.intervalMs * 3 / 2);
    }

    private double quietFloor(StallState s) {
        double relative = s.portBaseline == null ? 0 : cfg.stallQuietBaselineFraction() * s.portBaseline;
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
