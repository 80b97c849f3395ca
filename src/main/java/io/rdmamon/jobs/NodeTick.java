package io.rdmamon.jobs;

import java.util.ArrayList;
import java.util.List;

/**
 * One node's sampling pass as it arrives: its time, how many samples came so far, and the job events they make.
 * Kept by {@link NodeTickBatcher} until the pass is complete.
 */
public record NodeTick(long ts, int inputs, List<Routed> events) {
    /** A job event and the job it goes to. */
    public record Routed(String uid, JobEvent event) {
    }

    public NodeTick {
        events = events == null ? List.of() : List.copyOf(events);
    }

    static NodeTick open(long ts) {
        return new NodeTick(ts, 0, List.of());
    }

    NodeTick add(List<Routed> more) {
        List<Routed> all = new ArrayList<>(events.size() + more.size());
        all.addAll(events);
        all.addAll(more);
        return new NodeTick(ts, inputs + 1, all);
    }
}
