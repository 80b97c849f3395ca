package io.rdmamon.scenario;

import io.rdmamon.model.JobRecord;
import io.rdmamon.sim.TrafficProfile;
import io.rdmamon.sim.TrainingJobSpec;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The small cluster the scenarios run on, and shorthand for building a scenario's jobs and incidents on it. Times
 * are epoch ms: {@link #at} for the jobs' schedule, {@link #event} for scripted events.
 */
final class Cluster {
    static final long EPOCH = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();
    /** Where the main job runs: the first four nodes. */
    static final List<String> NODES = List.of("gpu-node-1", "gpu-node-2", "gpu-node-3", "gpu-node-4");
    static final String MAIN_JOB = "llama-pretrain";
    static final String NAMESPACE = "ml-research";
    private static final long[] CLOCK_OFFSETS_MS = {0, 137, 291, 455, 612, 803};
    private static final long TRAINING_START_MS = 45_000;

    /** Fault onsets move by up to this much with the seed, so detection is not always measured on a window edge. */
    static final long MAX_EVENT_SHIFT_MS = 10_000;

    private final String scenario;
    private final long seed;
    private final long eventShiftMs;
    private final int nodeCount;
    private final List<String> devices;
    private final long linkBytesPerSec;

    private Cluster(String scenario, long seed, int nodeCount, List<String> devices, long linkBytesPerSec) {
        if (nodeCount < NODES.size() || nodeCount > CLOCK_OFFSETS_MS.length) {
            throw new IllegalArgumentException("a scenario cluster has 4 to " + CLOCK_OFFSETS_MS.length + " nodes");
        }
        this.scenario = scenario;
        this.seed = seed;
        this.eventShiftMs = new SplittableRandom(seed * 31 + scenario.hashCode()).nextLong(MAX_EVENT_SHIFT_MS);
        this.nodeCount = nodeCount;
        this.devices = devices;
        this.linkBytesPerSec = linkBytesPerSec;
    }

    /** Four nodes with two 200 Gb/s mlx5 NICs each. */
    static Cluster mlx5(String scenario, long seed) {
        return mlx5(scenario, NODES.size(), seed);
    }

    /** {@code nodeCount} nodes ({@code gpu-node-1..n}) with two 200 Gb/s mlx5 NICs each. */
    static Cluster mlx5(String scenario, int nodeCount, long seed) {
        return new Cluster(scenario, seed, nodeCount, List.of("mlx5_0", "mlx5_1"), gbps(200));
    }

    /** Four nodes with two 100 Gb/s eRDMA devices each. */
    static Cluster erdma(String scenario, long seed) {
        return new Cluster(scenario, seed, NODES.size(), List.of("erdma_0", "erdma_1"), gbps(100));
    }

    static long gbps(long gbits) {
        return gbits * 125_000_000L;
    }

    /** A time in the jobs' schedule: {@code offsetMs} after the epoch. */
    long at(long offsetMs) {
        return EPOCH + offsetMs;
    }

    /** The time of a scripted event (fault, outage, phase): {@code offsetMs} plus the seed's shift. */
    long event(long offsetMs) {
        return EPOCH + offsetMs + eventShiftMs;
    }

    long link() {
        return linkBytesPerSec;
    }

    /** The default communication-bound pattern: 800 ms iterations, 500 ms bursts at 60 % of line rate. */
    TrafficProfile profile() {
        return TrafficProfile.of(800, 500, linkBytesPerSec, 0.6);
    }

    /** The main job's healthy traffic: 4 ranks on both rails, training from 45 s. */
    TrainingJobSpec training() {
        return TrainingJobSpec.steady(NODES.size(), devices.size(), at(TRAINING_START_MS), profile());
    }

    List<JobRecord.Rank> mainRanks() {
        return SimulatedJob.ranks(MAIN_JOB, NODES, devices);
    }

    /** llama-pretrain: rank r on gpu-node-(r+1), holding both NICs, Running from the scenario's start. */
    SimulatedJob mainJob(TrainingJobSpec traffic) {
        return job(MAIN_JOB, NODES, devices, traffic);
    }

    SimulatedJob job(String name, List<String> nodes, List<String> jobDevices, TrainingJobSpec traffic) {
        return SimulatedJob.create(scenario, name, NAMESPACE, SimulatedJob.ranks(name, nodes, jobDevices), at(0), null,
                traffic);
    }

    ScenarioSpec spec(String description, long durationMs, SimulatedJob job, Incident... incidents) {
        return spec(description, durationMs, List.of(job), List.of(), incidents);
    }

    ScenarioSpec spec(String description, long durationMs, List<SimulatedJob> jobs, List<CollectorOutage> outages,
                      Incident... incidents) {
        List<ClusterNode> nodes = new java.util.ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            nodes.add(new ClusterNode("gpu-node-" + (i + 1), devices, linkBytesPerSec, CLOCK_OFFSETS_MS[i]));
        }
        return new ScenarioSpec(scenario, description, seed, EPOCH, durationMs, nodes, jobs, outages,
                Arrays.asList(incidents));
    }

    /** A job-level incident (stalled sync) from {@code onsetMs} to the scenario's end. */
    Incident jobIncident(String type, SimulatedJob job, long onsetMs, String note) {
        return new Incident(type, Incident.ALERT, job.uid(), job.name(), null, null, null, onsetMs, null, note);
    }

    /** A rank-level incident (straggler): job and the rank's node. */
    Incident rankIncident(String type, SimulatedJob job, int rank, long onsetMs, String note) {
        return new Incident(type, Incident.ALERT, job.uid(), job.name(), job.running().ranks().get(rank).node(), null,
                null, onsetMs, null, note);
    }

    /** A port-level incident (link): the port of rank {@code rank}'s device {@code device}. */
    Incident portIncident(String type, SimulatedJob job, int rank, int device, long onsetMs, Long endMs,
                          String note) {
        JobRecord.Rank r = job.running().ranks().get(rank);
        return new Incident(type, Incident.ALERT, job.uid(), job.name(), r.node(), r.devices().get(device), 1,
                onsetMs, endMs, note);
    }
}
