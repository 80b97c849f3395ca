package io.rdmamon.jobs;

import io.rdmamon.model.GpuSample;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.PortSample;

/**
 * A sample with the assignment valid at its timestamp ({@link Assignment#NONE} when no Running job held the device
 * or node). Exactly one of {@code port}, {@code host} and {@code gpu} is set. {@code late}: judged a second time, for
 * the job side only, because its job's hold came after it was first judged without a job ({@link NodeAssigner}). A
 * node's re-judged samples come pass by pass, one right after another; {@code passEnd} marks the last of a pass, so
 * that the job side sends the pass on as one batch ({@link NodeTickBatcher}).
 */
public record AssignedInput(PortSample port, HostIfaceSample host, GpuSample gpu, Assignment assignment, boolean late,
                            boolean passEnd) {
    public AssignedInput {
        assignment = Assignment.orNone(assignment);
    }

    public AssignedInput(PortSample port, HostIfaceSample host, Assignment assignment) {
        this(port, host, null, assignment, false, false);
    }

    /** The node of the sample. */
    public String node() {
        return port != null ? port.node() : host != null ? host.node() : gpu.node();
    }
}
