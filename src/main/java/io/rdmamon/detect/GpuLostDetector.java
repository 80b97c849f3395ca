package io.rdmamon.detect;

import io.rdmamon.jobs.AssignedInput;
import io.rdmamon.jobs.Holder;
import io.rdmamon.model.Alert;
import io.rdmamon.model.GpuSample;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * GPU_LOST: a GPU whose readings have been errors for {@code streams.gpu.lost.after.ms} (the collector keeps such a
 * GPU in its samples, its values null and {@code error} saying why: it fell off the bus, NVML reports it lost, an XID
 * error). Its rank cannot run: the job on it hangs or dies, so the alert names the node, the GPU and the jobs holding
 * it; critical while a Running job holds the GPU, a warning otherwise. Resolves with the GPU's next good reading, or
 * when the node's samples have been gone for {@code streams.collector.forget.ms} (a node taken out). One state per GPU,
 * in its node's partition, kept only while the GPU is in error.
 */
public final class GpuLostDetector implements Detector<AssignedInput, GpuLostDetector.State> {

    /** Errors since {@code since}, the newest at {@code lastTs} with {@code error}; {@code alerted} once reported. */
    public record State(long since, long lastTs, String error, boolean alerted) {
    }

    private final DetectorConfig cfg;

    public GpuLostDetector(DetectorConfig cfg) {
        this.cfg = cfg;
    }

    @Override
    public String type() {
        return Alert.GPU_LOST;
    }

    @Override
    public Class<State> stateType() {
        return State.class;
    }

    @Override
    public String stateKey(String recordKey, AssignedInput value) {
        // a sample judged again for a late hold was judged here the first time
        return value.gpu() == null || value.late() ? null : value.gpu().key();
    }

    @Override
    public Result<State> inspect(State state, AssignedInput value, long ts) {
        GpuSample g = value.gpu();
        if (state != null && g.ts() <= state.lastTs()) {
            return null; // late: the newer reading stands
        }
        Subject subject = subject(value);
        if (g.error() == null) {
            return state == null ? null
                    : Result.of(null, state.alerted() ? List.of(Observation.cleared(subject, g.ts())) : List.of());
        }
        State current = new State(state == null ? g.ts() : state.since(), g.ts(), g.error(),
                state != null && state.alerted());
        if (current.alerted() || g.ts() - current.since() < cfg.gpuLostAfterMs()) {
            return Result.of(current);
        }
        return Result.of(new State(current.since(), current.lastTs(), current.error(), true),
                Observation.holds(subject, condition(value, current), g.ts()));
    }

    @Override
    public Result<State> expire(State state, long streamTime) {
        return streamTime - state.lastTs() > cfg.collectorForgetMs() ? new Result<>(null, List.of(), state.lastTs())
                : null;
    }

    /** The GPU, under the job holding it (the first by uid when shared) so that its alert routes with the job's. */
    private static Subject subject(AssignedInput value) {
        GpuSample g = value.gpu();
        Holder primary = value.assignment().primary();
        return new Subject(g.key(), primary == null ? null : primary.job(),
                primary == null ? null : primary.namespace(), g.node(), gpuName(g), null);
    }

    private static String gpuName(GpuSample g) {
        return g.uuid() != null ? g.uuid() : "gpu" + g.gpu();
    }

    private static Condition condition(AssignedInput value, State state) {
        GpuSample g = value.gpu();
        List<Holder> holders = value.assignment().holders();
        StringBuilder jobs = new StringBuilder();
        StringBuilder uids = new StringBuilder();
        StringBuilder ranks = new StringBuilder();
        for (Holder h : holders) {
            jobs.append(jobs.isEmpty() ? "" : ",").append(h.namespace() == null ? "" : h.namespace() + "/")
                    .append(h.job());
            uids.append(uids.isEmpty() ? "" : ",").append(h.uid());
            for (var rank : GpuRanks.of(h.ranks(), g.node(), g.uuid(), g.gpu(), g.migDevices())) {
                ranks.append(ranks.isEmpty() ? "" : ",").append(h.job()).append(':').append(rank.rank());
            }
        }
        String summary = "GPU " + g.gpu() + (g.uuid() == null ? "" : " (" + g.uuid() + ")") + " of node " + g.node()
                + ": its readings have failed for " + (g.ts() - state.since()) / 1000 + " s (" + state.error()
                + "): it fell off the bus or its driver lost it, and nothing runs on it until the node is repaired "
                + "(check dmesg for XID errors). " + (holders.isEmpty() ? "No Running job holds it"
                : "Held by " + jobs + (ranks.isEmpty() ? "" : " (rank " + ranks + ")") + ": the job hangs or fails");
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("gpu", String.valueOf(g.gpu()));
        if (g.uuid() != null) {
            labels.put("uuid", g.uuid());
        }
        labels.put("error", state.error());
        if (!holders.isEmpty()) {
            labels.put("jobs", jobs.toString());
            labels.put("uid", uids.toString());
        }
        if (!ranks.isEmpty()) {
            labels.put("ranks", ranks.toString());
        }
        return new Condition(state.since(), holders.isEmpty() ? Condition.WARNING : Condition.CRITICAL, summary,
                labels);
    }
}
