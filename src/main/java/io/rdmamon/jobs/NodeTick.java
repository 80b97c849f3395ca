package io.rdmamon.jobs;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.ArrayList;
import java.util.List;

/**
 * One node's sampling pass as it arrives: its time, how many samples came so far, and the job events they make.
 * Kept by {@link NodeTickBatcher} until the pass is complete. Mutable on purpose: each sample of the pass appends
 * its events in place (as an immutable record, every sample copied the pass's list twice).
 */
public final class NodeTick {
    /** A job event and the job it goes to. */
    public record Routed(String uid, JobEvent event) {
    }

    private final long ts;
    private int inputs;
    private final List<Routed> events;

    @JsonCreator
    NodeTick(@JsonProperty("ts") long ts, @JsonProperty("inputs") int inputs,
             @JsonProperty("events") List<Routed> events) {
        this.ts = ts;
        this.inputs = inputs;
        this.events = events == null ? new ArrayList<>() : new ArrayList<>(events);
    }

    static NodeTick open(long ts) {
        return new NodeTick(ts, 0, null);
    }

    /** Adds one sample's events; returns this tick. */
    NodeTick add(List<Routed> more) {
        events.addAll(more);
        inputs++;
        return this;
    }

    /** Adds another pass's samples and events (a node's host samples to its port pass); returns this tick. */
    NodeTick join(NodeTick other) {
        events.addAll(other.events);
        inputs += other.inputs;
        return this;
    }

    @JsonProperty
    public long ts() {
        return ts;
    }

    @JsonProperty
    public int inputs() {
        return inputs;
    }

    @JsonProperty
    public List<Routed> events() {
        return events;
    }
}
