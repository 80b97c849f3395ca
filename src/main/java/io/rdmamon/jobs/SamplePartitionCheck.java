package io.rdmamon.jobs;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.model.NodePartitioner;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sends each sample on to {@link NodeAssigner} in place when it is in its node's partition ({@link NodePartitioner},
 * the topics' contract), and through a repartition topic to that partition when it is not: a producer that
 * partitions by the whole key (Kafka's default partitioner) still gets its samples judged with their node's job and
 * silence, at the price of one more Kafka write and read per such sample and a commit interval of latency. Those are
 * counted ({@code rdmamon_streams_misrouted_samples_total}) and each node logged once. (Samples without a key do not
 * get here on a topic of several partitions: their order is lost, and the decoder refuses them.)
 */
public final class SamplePartitionCheck implements Processor<String, NodeInput, String, NodeInput> {
    private static final Logger log = LoggerFactory.getLogger(SamplePartitionCheck.class);

    private final int partitions;
    private final Counter misrouted;
    private final Set<String> nodesLogged;
    private final String inPlace;
    private final String elsewhere;
    /** The last node found in its right partition: a node's samples come together, and the hash is per node. */
    private String checkedNode;
    private int checkedPartition = -1;
    private ProcessorContext<String, NodeInput> context;

    private SamplePartitionCheck(int partitions, Counter misrouted, Set<String> nodesLogged, String inPlace,
                                 String elsewhere) {
        this.partitions = partitions;
        this.misrouted = misrouted;
        this.nodesLogged = nodesLogged;
        this.inPlace = inPlace;
        this.elsewhere = elsewhere;
    }

    /**
     * @param partitions partitions of the sample topics
     * @param inPlace    the child that gets samples already in their node's partition
     * @param elsewhere  the child that re-partitions the others by node
     */
    public static ProcessorSupplier<String, NodeInput, String, NodeInput> supplier(int partitions,
                                                                                  MeterRegistry registry,
                                                                                  String inPlace, String elsewhere) {
        Counter misrouted = Counter.builder("rdmamon.streams.misrouted.samples")
                .description("Samples found in another partition than the node partitioner gives (a producer that "
                        + "does not partition by node): re-partitioned by node, one more Kafka write and read each")
                .register(registry);
        Set<String> nodesLogged = ConcurrentHashMap.newKeySet();
        return () -> new SamplePartitionCheck(partitions, misrouted, nodesLogged, inPlace, elsewhere);
    }

    @Override
    public void init(ProcessorContext<String, NodeInput> context) {
        this.context = context;
    }

    @Override
    public void process(Record<String, NodeInput> record) {
        NodeInput in = record.value();
        String node = in.node();
        Optional<RecordMetadata> meta = context.recordMetadata();
        if (meta.isEmpty() || meta.get().partition() == checkedPartition && node.equals(checkedNode)) {
            context.forward(record, inPlace);
            return;
        }
        int right = NodePartitioner.partition(node, partitions);
        if (meta.get().partition() == right) {
            checkedNode = node;
            checkedPartition = right;
            context.forward(record, inPlace);
            return;
        }
        misrouted.increment();
        if (nodesLogged.add(node)) {
            log.warn("samples of node {} arrive on {} partition {}, not {} as the node partitioner gives: their "
                            + "producer does not partition by node (set partitioner.class={}). They are re-partitioned "
                            + "by node, at one more Kafka write and read each (rdmamon_streams_misrouted_samples_total); "
                            + "logged once per node", node,
                    meta.get().topic(), meta.get().partition(), right, NodePartitioner.class.getName());
        }
        context.forward(record, elsewhere);
    }
}
