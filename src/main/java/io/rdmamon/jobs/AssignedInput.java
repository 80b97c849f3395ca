package io.rdmamon.jobs;

import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.PortSample;

/**
 * A sample with the assignment valid at its timestamp ({@link Assignment#NONE} when no Running job held the device
 * or node). Exactly one of {@code port} and {@code host} is set. {@code late}: judged a second time, for the job side
 * only, because its job's hold came after it was first judged without a job ({@link NodeAssigner}).
 */
public record AssignedInput(PortSample port, HostIfaceSample host, Assignment assignment, boolean late) {
    public AssignedInput {
        assignment = Assignment.orNone(assignment);
    }

    public AssignedInput(PortSample port, HostIfaceSample host, Assignment assignment) {
        this(port, host, assignment, false);
    }
}
