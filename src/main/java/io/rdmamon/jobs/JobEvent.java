package io.rdmamon.jobs;

import io.rdmamon.model.GpuSample;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.JobRecord;

/**
 * Everything job-level state needs, on one stream keyed by job uid: the job's port samples, the host-interface
 * samples of its nodes (the checkpoint hint), the samples of the GPUs its ranks hold, and its own metadata updates
 * (start, restart, end). Exactly one field is set.
 */
public record JobEvent(JobSample port, HostIfaceSample host, GpuSample gpu, JobRecord lifecycle) {
    public static JobEvent of(JobSample port) {
        return new JobEvent(port, null, null, null);
    }

    public static JobEvent of(HostIfaceSample host) {
        return new JobEvent(null, host, null, null);
    }

    public static JobEvent of(GpuSample gpu) {
        return new JobEvent(null, null, gpu, null);
    }

    public static JobEvent of(JobRecord lifecycle) {
        return new JobEvent(null, null, null, lifecycle);
    }
}
