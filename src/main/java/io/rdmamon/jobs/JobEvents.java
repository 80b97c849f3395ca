package io.rdmamon.jobs;

import io.rdmamon.model.JobRecord;
import io.rdmamon.model.JsonSerde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Repartitioned;

import java.util.ArrayList;
import java.util.List;

/**
 * Re-keys assigned samples to the jobs holding them and merges the jobs' own updates, repartitioned by job uid: the
 * input of every job-level stage (bandwidth windows, stall and straggler detection). A sample of a device held by two
 * Running jobs goes to both, marked shared.
 */
public final class JobEvents {
    private JobEvents() {
    }

    public static KStream<String, JobEvent> byJob(KStream<String, AssignedInput> assigned,
                                                  KStream<String, JobRecord> jobs) {
        KStream<String, JobEvent> samples = assigned.flatMap((key, in) -> fanOut(in),
                Named.as("job-events-fan-out"));
        KStream<String, JobEvent> lifecycle = jobs.mapValues(JobEvent::of, Named.as("job-events-lifecycle"));
        return samples.merge(lifecycle, Named.as("job-events-merge"))
                .repartition(Repartitioned.<String, JobEvent>as("job-events")
                        .withKeySerde(Serdes.String()).withValueSerde(JsonSerde.of(JobEvent.class)));
    }

    static List<KeyValue<String, JobEvent>> fanOut(AssignedInput in) {
        List<KeyValue<String, JobEvent>> out = new ArrayList<>();
        int sharedBy = in.assignment().sharedBy();
        for (Holder holder : in.assignment().holders()) {
            JobEvent event = in.port() != null ? JobEvent.of(new JobSample(in.port(), holder, sharedBy))
                    : JobEvent.of(in.host());
            out.add(KeyValue.pair(holder.uid(), event));
        }
        return out;
    }
}
