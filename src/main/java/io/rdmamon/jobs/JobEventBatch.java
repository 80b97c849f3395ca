package io.rdmamon.jobs;

import java.util.List;

/**
 * The job events of one node's sampling pass for one job (its ports' samples, its host interfaces), or one job
 * record: the value of the {@code job-event-batches} repartition topic, keyed by job uid. One record per node and
 * pass instead of one per sample is what keeps the job side's Kafka traffic small.
 */
public record JobEventBatch(List<JobEvent> events) {
    public JobEventBatch {
        events = events == null ? List.of() : List.copyOf(events);
    }

    public static JobEventBatch of(JobEvent event) {
        return new JobEventBatch(List.of(event));
    }
}
