package io.rdmamon.jobs;

import io.rdmamon.model.PortSample;

/** A port sample with the Running jobs holding its device at the sample's time (none: the port is unassigned). */
public record AssignedSample(PortSample sample, Assignment assignment) {
    public AssignedSample {
        assignment = Assignment.orNone(assignment);
    }
}
