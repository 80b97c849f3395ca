package io.rdmamon.jobs;

import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.config.StoreType;
import io.rdmamon.model.GpuSample;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.JsonSerde;
import io.rdmamon.model.NodePartitioner;
import io.rdmamon.model.PortSample;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * The job-metadata join. Job records (key uid) become changes of holds on devices and nodes, keyed {@code node/device}
 * and {@code node/*} and re-partitioned by node like the samples (the one repartition here, once per job change);
 * {@link NodeAssigner} then gives each sample, in its node's partition, the assignment valid at the sample's time.
 */
public final class JobAssignments {
    public static final String REPARTITION = "assignment-updates";
    /** The repartition of samples a producer did not put in their node's partition. */
    public static final String MISROUTED = "misrouted-samples";

    private JobAssignments() {
    }

    /**
     * @param samplePartitions partitions of the sample topics, which the hold changes must match; 0 when unknown
     *                         (one partition, as in tests and replays)
     * @param clockCorrection  puts each sample, in its node's partition, in the other nodes' time
     *                         ({@code io.rdmamon.clock.ClockCorrection})
     */
    public static KStream<String, AssignedInput> assign(KStream<String, PortSample> ports,
                                                        KStream<String, HostIfaceSample> hosts,
                                                        KStream<String, GpuSample> gpus,
                                                        KStream<String, JobRecord> jobs, int samplePartitions,
                                                        Duration historyRetention, Duration lateGrace,
                                                        MeterRegistry registry, StoreType storeType,
                                                        ProcessorSupplier<String, NodeInput, String, NodeInput>
                                                                clockCorrection) {
        Repartitioned<String, HolderUpdate> byNode = Repartitioned.<String, HolderUpdate>as(REPARTITION)
                .withKeySerde(Serdes.String()).withValueSerde(JsonSerde.of(HolderUpdate.class))
                .withStreamPartitioner((topic, key, value, partitions) ->
                        Optional.of(Set.of(NodePartitioner.partition(key, partitions))));
        if (samplePartitions > 0) {
            byNode = byNode.withNumberOfPartitions(samplePartitions);
        }
        KStream<String, NodeInput> holds = jobs
                .process(AssignmentDiffProcessor.supplier(storeType), Named.as("job-assignment-diff"))
                .repartition(byNode)
                .mapValues(NodeInput::of, Named.as("hold-changes"));
        KStream<String, NodeInput> samples = ports.mapValues(NodeInput::of, Named.as("port-inputs"))
                .merge(hosts.mapValues(NodeInput::of, Named.as("host-inputs")), Named.as("sample-inputs"))
                .merge(gpus.mapValues(NodeInput::of, Named.as("gpu-inputs")), Named.as("sample-and-gpu-inputs"));
        if (samplePartitions > 0) {
            samples = byNode(samples, samplePartitions, registry);
        }
        samples = samples.process(clockCorrection, Named.as("clock-correction"));
        return samples.merge(holds, Named.as("node-inputs"))
                .process(NodeAssigner.supplier(historyRetention.toMillis(), lateGrace.toMillis(),
                                NodeTickBatcher.PROCESSOR, registry, storeType),
                        Named.as("assign-job"));
    }

    /** The samples each in its node's partition: those a producer put elsewhere through a repartition topic. */
    private static KStream<String, NodeInput> byNode(KStream<String, NodeInput> samples, int partitions,
                                                     MeterRegistry registry) {
        String inPlace = "samples-in-place";
        String elsewhere = "samples-misrouted";
        KStream<String, NodeInput> checked = samples.process(
                SamplePartitionCheck.supplier(partitions, registry, inPlace, elsewhere),
                Named.as("sample-partition-check"));
        KStream<String, NodeInput> moved = checked.mapValues(v -> v, Named.as(elsewhere))
                .repartition(Repartitioned.<String, NodeInput>as(MISROUTED).withKeySerde(Serdes.String())
                        .withValueSerde(JsonSerde.of(NodeInput.class)).withNumberOfPartitions(partitions)
                        .withStreamPartitioner((topic, key, value, n) ->
                                Optional.of(Set.of(NodePartitioner.partition(key, n)))));
        return checked.mapValues(v -> v, Named.as(inPlace)).merge(moved, Named.as("samples-by-node"));
    }
}
