package io.rdmamon.jobs;

import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.PortSample;

/**
 * A sample with the assignment valid at its timestamp ({@link Assignment#NONE} when no Running job held the device
 * or node). Exactly one of {@code port} and {@code host} is set.
 */
public record AssignedInput(PortSample port, HostIfaceSample host, Assignment assignment) {
    public AssignedInput {
        assignment = Assignment.orNone(assignment);
    }
}
