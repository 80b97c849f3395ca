package io.rdmamon.scenario;

import java.util.List;

/**
 * A labelled scenario: a cluster, the jobs on it with their traffic and faults, collector outages, and the incidents
 * a monitor should (or must not) report, sampled once per second from {@code startMs} for {@code durationMs}. The
 * seed drives its noise, arrival jitter and the shift of its fault times.
 */
public record ScenarioSpec(String name, String description, long seed, long startMs, long durationMs,
                           List<ClusterNode> nodes, List<SimulatedJob> jobs, List<CollectorOutage> outages,
                           List<Incident> incidents) {

    public ScenarioSpec {
        nodes = List.copyOf(nodes);
        jobs = List.copyOf(jobs);
        outages = outages == null ? List.of() : List.copyOf(outages);
        incidents = incidents == null ? List.of() : List.copyOf(incidents);
    }

    public long endMs() {
        return startMs + durationMs;
    }

    public GroundTruth truth() {
        return new GroundTruth(GroundTruth.VERSION, name, description, seed, startMs, endMs(), incidents);
    }
}
