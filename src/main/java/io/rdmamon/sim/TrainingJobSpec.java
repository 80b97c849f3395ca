package io.rdmamon.sim;

import java.util.List;

/**
 * What a simulated training job does on the network, independent of where it runs: {@code ranks} ranks with
 * {@code devicesPerRank} NICs each (rails), silent until {@code trafficStartMs} (image pull, NCCL init), training with
 * {@code training} bursts until {@code trafficEndMs} (null = still running), optionally checkpointing and switching
 * to other phases (evaluation), optionally loading data over the host network, with faults injected at given times.
 */
public record TrainingJobSpec(
        int ranks,
        int devicesPerRank,
        long trafficStartMs,
        Long trafficEndMs,
        TrafficProfile training,
        CheckpointSchedule checkpoints,
        DataLoading dataLoading,
        List<Phase> phases,
        List<Fault> faults) {

    public TrainingJobSpec {
        if (ranks < 1 || devicesPerRank < 1) {
            throw new IllegalArgumentException("need ranks >= 1 and devicesPerRank >= 1, got " + ranks + " and "
                    + devicesPerRank);
        }
        phases = phases == null ? List.of() : List.copyOf(phases);
        faults = faults == null ? List.of() : List.copyOf(faults);
    }

    /** A job that trains with one profile from {@code trafficStartMs} on, no checkpoints, phases or faults. */
    public static TrainingJobSpec steady(int ranks, int devicesPerRank, long trafficStartMs, TrafficProfile training) {
        return new TrainingJobSpec(ranks, devicesPerRank, trafficStartMs, null, training, null, null, List.of(),
                List.of());
    }

    public TrainingJobSpec endingAt(long trafficEndMs) {
        return new TrainingJobSpec(ranks, devicesPerRank, trafficStartMs, trafficEndMs, training, checkpoints,
                dataLoading, phases, faults);
    }

    public TrainingJobSpec withCheckpoints(CheckpointSchedule schedule) {
        return new TrainingJobSpec(ranks, devicesPerRank, trafficStartMs, trafficEndMs, training, schedule,
                dataLoading, phases, faults);
    }

    public TrainingJobSpec withDataLoading(DataLoading loader) {
        return new TrainingJobSpec(ranks, devicesPerRank, trafficStartMs, trafficEndMs, training, checkpoints, loader,
                phases, faults);
    }

    public TrainingJobSpec withPhase(Phase phase) {
        List<Phase> more = new java.util.ArrayList<>(phases);
        more.add(phase);
        return new TrainingJobSpec(ranks, devicesPerRank, trafficStartMs, trafficEndMs, training, checkpoints,
                dataLoading, more, faults);
    }

    public TrainingJobSpec withFault(Fault fault) {
        List<Fault> more = new java.util.ArrayList<>(faults);
        more.add(fault);
        return new TrainingJobSpec(ranks, devicesPerRank, trafficStartMs, trafficEndMs, training, checkpoints,
                dataLoading, phases, more);
    }
}
