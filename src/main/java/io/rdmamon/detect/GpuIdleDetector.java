package io.rdmamon.detect;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import io.rdmamon.jobs.JobEvent;
import io.rdmamon.model.Alert;
import io.rdmamon.model.GpuSample;
import io.rdmamon.model.JobRecord;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * GPU_IDLE (a warning): every GPU a Running job used has been without a compute process for
 * {@code streams.gpu.idle.after.ms} (5 min): its ranks exited and nothing followed on its GPUs, while the job still
 * holds them. Before, every GPU empty for 4 s paged as a crash (STALLED_SYNC, critical); but a pod that runs
 * {@code torchrun train.py && python upload.py}, two runs chained, or an elastic restart in the same pods all leave
 * the GPUs empty for a while and then go on: nothing is wrong, or nothing the network can call a hang. So an empty job
 * is no stall ({@link GpuActivity} holds STALLED_SYNC's learned rule while it lasts), and only GPUs that stay empty
 * past the grace are reported, as held capacity doing nothing (a wrapper that outlived training, a crash nothing
 * restarted), the way LINK_IDLE reports an idle port. Resolves when a process is back on one of the job's GPUs, or at
 * the job's end. Jobs without GPU samples are never judged.
 */
public final class GpuIdleDetector implements Detector<JobEvent, GpuIdleDetector.State> {
    private static final long FORGET_ENDED_MS = 3_600_000;
    private static final long FORGET_SILENT_MS = 86_400_000;

    /** One Running job's GPUs: their readings, the job's nodes, and since when the reported idleness holds. */
    @JsonAutoDetect(fieldVisibility = Visibility.ANY, getterVisibility = Visibility.NONE,
            isGetterVisibility = Visibility.NONE)
    static final class State {
        String uid;
        String job;
        String namespace;
        String generation;
        List<String> nodes = List.of();
        Long endedAt;
        /** The empty stretch reported (its start), null while none is. */
        Long reportedSince;
        GpuActivity gpus = new GpuActivity();

        Subject subject() {
            return new Subject(uid, job, namespace, null, null, null);
        }
    }

    private final DetectorConfig cfg;

    public GpuIdleDetector(DetectorConfig cfg) {
        this.cfg = cfg;
    }

    @Override
    public String type() {
        return Alert.GPU_IDLE;
    }

    @Override
    public Class<State> stateType() {
        return State.class;
    }

    @Override
    public Result<State> inspect(State state, JobEvent event, long ts) {
        if (event.lifecycle() != null) {
            return lifecycle(state, event.lifecycle());
        }
        if (event.gpu() == null || state == null || state.endedAt != null) {
            return null; // port and host samples say nothing of the GPUs; no Running record yet
        }
        GpuSample g = event.gpu();
        state.gpus.observe(g, cfg);
        if (state.reportedSince != null) {
            if (g.processes() != null && g.processes() > 0) {
                state.reportedSince = null;
                return Result.of(state, Observation.cleared(state.subject(), g.ts()));
            }
            return Result.of(state);
        }
        Long emptySince = state.gpus.emptySince(state.nodes, cfg);
        long at = state.gpus.newest();
        if (emptySince == null || at - emptySince < cfg.gpuIdleAfterMs()) {
            return Result.of(state);
        }
        state.reportedSince = emptySince;
        return Result.of(state, Observation.holds(state.subject(), condition(state, emptySince, at), at));
    }

    @Override
    public Result<State> expire(State s, long streamTime) {
        if (s.endedAt != null && streamTime - s.endedAt > FORGET_ENDED_MS) {
            return Result.of(null);
        }
        Long newest = s.gpus.newest();
        if (s.endedAt == null && newest != null && streamTime - newest > FORGET_SILENT_MS) {
            return new Result<>(null, List.of(), newest);
        }
        return null;
    }

    private Result<State> lifecycle(State state, JobRecord job) {
        if (JobLifecycle.ended(job)) {
            if (state == null || state.endedAt != null) {
                return null;
            }
            state.endedAt = job.updatedAt();
            return Result.closeAll(state, job.updatedAt());
        }
        if (!JobRecord.RUNNING.equals(job.state())) {
            return null;
        }
        boolean restarted = state != null && JobLifecycle.restarted(job, state.endedAt, state.generation);
        State next = state == null || restarted ? new State() : state;
        next.uid = job.uid();
        next.job = job.job();
        next.namespace = job.namespace();
        next.generation = JobLifecycle.generation(job);
        next.nodes = job.ranks().stream().map(JobRecord.Rank::node).distinct().toList();
        next.gpus.ranks(job.ranks());
        return restarted ? Result.closeAll(next, job.updatedAt()) : Result.of(next);
    }

    private Condition condition(State s, long since, long at) {
        long minutes = (at - since) / 60_000;
        String summary = "job " + s.job + (s.namespace == null ? "" : " (" + s.namespace + ")") + ": none of the GPUs "
                + "it used has had a compute process for " + minutes + " min while its record still says Running: "
                + "its ranks exited and nothing followed on its GPUs (a command still running after training, a "
                + "crash nothing restarted). The GPUs are held idle: check the pods' logs, or end the job";
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("uid", s.uid);
        labels.put("idleSeconds", String.valueOf((at - since) / 1000));
        return new Condition(since, Condition.WARNING, summary, labels);
    }
}
