package io.rdmamon.streams;

import io.rdmamon.model.ContractLimits;
import io.rdmamon.model.GpuSample;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.PortSample;
import io.rdmamon.model.RecordParser;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * One input topic's contract as the stream app applies it: how to parse a value, its key and event time, what a
 * tombstone means, and any check between key and value.
 */
record Input<T>(String name, RecordParser<T> parser, Function<T, String> keyOf, ToLongFunction<T> eventTimeOf,
                Tombstone<T> tombstone, KeyCheck<T> keyCheck) {

    interface Tombstone<T> {
        T of(String key, long timestamp);
    }

    interface KeyCheck<T> {
        /** Null when the key fits the value, else the reason. */
        String problem(String key, T value);
    }

    static final Input<PortSample> PORT_SAMPLES = new Input<>("port-samples", RecordParser.PORT_SAMPLE,
            PortSample::key, PortSample::ts, (key, ts) -> null, (key, value) -> null);
    static final Input<HostIfaceSample> HOST_SAMPLES = new Input<>("host-samples", RecordParser.HOST_SAMPLE,
            HostIfaceSample::key, HostIfaceSample::ts, (key, ts) -> null, (key, value) -> null);
    static final Input<GpuSample> GPU_SAMPLES = new Input<>("gpu-samples", RecordParser.GPU_SAMPLE,
            GpuSample::key, GpuSample::ts, (key, ts) -> null, (key, value) -> null);
    /** A job tombstone (compaction's delete) is the job's deletion at the record's time. */
    static final Input<JobRecord> JOBS = new Input<>("jobs", RecordParser.JOB, JobRecord::uid,
            JobRecord::updatedAt,
            (key, ts) -> key == null ? null : new JobRecord(JobRecord.VERSION, key, key, null, JobRecord.DELETED, ts,
                    null, null, List.of(), Map.of()),
            (key, job) -> key == null || key.equals(job.uid()) ? null
                    : "key '" + key + "' does not match uid '" + job.uid() + "' (rdma.jobs is keyed by uid)");

    /** The same input, its parser checking against {@code limits} (the configured ones). */
    Input<T> withLimits(ContractLimits limits) {
        return new Input<>(name, parser.withLimits(limits), keyOf, eventTimeOf, tombstone, keyCheck);
    }

    /**
     * The same input refusing records without a Kafka key. A sample needs its key on a topic of several partitions:
     * without one, Kafka's default partitioner scatters a port's samples over the partitions a batch at a time and
     * they reach the app out of order (a hang went undetected that way); with one, a producer that does not partition
     * by node is only re-partitioned ({@code SamplePartitionCheck}).
     */
    Input<T> requiringKey(int partitions) {
        KeyCheck<T> checkKey = keyCheck;
        return new Input<>(name, parser, keyOf, eventTimeOf, tombstone, (key, value) -> key != null
                ? checkKey.problem(key, value)
                : "no record key: on a topic of " + partitions + " partitions a sample needs its key (node/...), "
                + "or its port's samples are scattered over the partitions and lose their order");
    }

    String key(T value) {
        return keyOf.apply(value);
    }

    long eventTime(T value) {
        return eventTimeOf.applyAsLong(value);
    }

    T tombstone(String key, long timestamp) {
        return tombstone.of(key, timestamp);
    }

    String check(String key, T value) {
        return keyCheck.problem(key, value);
    }
}
