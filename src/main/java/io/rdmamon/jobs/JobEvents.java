package io.rdmamon.jobs;

import io.rdmamon.model.JobRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Repartitioned;

import java.util.ArrayList;
import java.util.List;

/**
 * The input of every job-level stage (bandwidth windows, stall and straggler detection), keyed by job uid: the
 * batched samples of the job's nodes ({@link NodeTickBatcher}) and the jobs' own updates, through one repartition
 * topic. A sample of a device held by two Running jobs goes to both, marked shared.
 */
public final class JobEvents {
    public static final String REPARTITION = "job-event-batches";

    private JobEvents() {
    }

    public static KStream<String, JobEvent> byJob(KStream<String, JobEventBatch> batches,
                                                  KStream<String, JobRecord> jobs) {
        KStream<String, JobEventBatch> lifecycle = jobs.mapValues(job -> JobEventBatch.of(JobEvent.of(job)),
                Named.as("job-events-lifecycle"));
        return batches.merge(lifecycle, Named.as("job-events-merge"))
                .repartition(Repartitioned.<String, JobEventBatch>as(REPARTITION)
                        .withKeySerde(Serdes.String()).withValueSerde(new JobEventBatchSerde()))
                .flatMapValues(JobEventBatch::events, Named.as("job-events"));
    }

    /** The job events a sample makes: one per job holding its device (or node), none when nothing holds it. */
    static List<NodeTick.Routed> fanOut(AssignedInput in) {
        List<NodeTick.Routed> out = new ArrayList<>(in.assignment().holders().size());
        int sharedBy = in.assignment().sharedBy();
        PortTraffic traffic = in.port() != null ? PortTraffic.of(in.port()) : null;
        for (Holder holder : in.assignment().holders()) {
            JobEvent event = traffic != null ? JobEvent.of(new JobSample(traffic, holder, sharedBy))
                    : in.host() != null ? JobEvent.of(in.host()) : JobEvent.of(in.gpu());
            out.add(new NodeTick.Routed(holder.uid(), event));
        }
        return out;
    }
}
