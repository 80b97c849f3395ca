package io.rdmamon.jobs;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.config.StoreType;
import io.rdmamon.model.NodePartitioner;
import io.rdmamon.streams.state.ObjectStore;
import io.rdmamon.streams.state.ObjectStores;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.StoreBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * The job-metadata join, in each node's own partition: folds the jobs' {@link HolderUpdate}s into an
 * {@link AssignmentHistory} per device and node, and gives every port and host sample the assignment valid at the
 * sample's own timestamp. Samples, host samples and hold changes of one node share a partition (the
 * {@link NodePartitioner} contract), so nothing is re-partitioned per sample. Hold changes of one key are assumed to
 * arrive in {@code updatedAt} order, which holds when one watcher publishes the jobs.
 */
public final class NodeAssigner implements Processor<String, NodeInput, String, AssignedInput> {
    public static final String STORE = "assignment-history";
    private static final Logger log = LoggerFactory.getLogger(NodeAssigner.class);

    private final long retentionMs;
    private final int samplePartitions;
    private final Counter misrouted;
    private final Set<String> misroutedNodesLogged = new HashSet<>();
    /** The last node found in its right partition: a node's samples come together, and the hash is per sample. */
    private String checkedNode;
    private int checkedPartition = -1;
    private ProcessorContext<String, AssignedInput> context;
    private ObjectStore<AssignmentHistory> histories;

    private NodeAssigner(long retentionMs, int samplePartitions, Counter misrouted) {
        this.retentionMs = retentionMs;
        this.samplePartitions = samplePartitions;
        this.misrouted = misrouted;
    }

    /**
     * @param samplePartitions partitions of the sample topics, to count records a producer put in the wrong one; 0
     *                         when unknown (no check)
     */
    public static ProcessorSupplier<String, NodeInput, String, AssignedInput> supplier(long retentionMs,
                                                                                       int samplePartitions,
                                                                                       MeterRegistry registry,
                                                                                       StoreType storeType) {
        Counter misrouted = Counter.builder("rdmamon.streams.misrouted.samples")
                .description("Samples found in another partition than the node partitioner gives (a producer that "
                        + "does not partition by node): their node's assignment and silence are judged apart")
                .register(registry);
        return new ProcessorSupplier<>() {
            @Override
            public Processor<String, NodeInput, String, AssignedInput> get() {
                return new NodeAssigner(retentionMs, samplePartitions, misrouted);
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return Set.of(ObjectStores.builder(STORE, AssignmentHistory.class, storeType));
            }
        };
    }

    @Override
    public void init(ProcessorContext<String, AssignedInput> context) {
        this.context = context;
        this.histories = context.getStateStore(STORE);
    }

    @Override
    public void process(Record<String, NodeInput> record) {
        NodeInput in = record.value();
        if (in.update() != null) {
            hold(record.key(), in.update(), record.timestamp());
        } else if (in.port() != null) {
            checkPartition(in.port().node());
            String key = AssignmentKeys.device(in.port().node(), in.port().device());
            context.forward(record.withValue(new AssignedInput(in.port(), null, at(key, record.timestamp()))));
        } else if (in.host() != null) {
            checkPartition(in.host().node());
            String key = AssignmentKeys.node(in.host().node());
            context.forward(record.withValue(new AssignedInput(null, in.host(), at(key, record.timestamp()))));
        }
    }

    private Assignment at(String key, long ts) {
        AssignmentHistory history = histories.get(key);
        return history == null ? Assignment.NONE : history.at(ts);
    }

    private void hold(String key, HolderUpdate update, long ts) {
        AssignmentHistory history = histories.get(key);
        Assignment before = history == null ? Assignment.NONE : history.latest();
        Assignment after = before.with(update.uid(), update.holder());
        if (after.equals(before)) {
            return;
        }
        AssignmentHistory next = (history == null ? new AssignmentHistory(null) : history).with(ts, after,
                retentionMs);
        histories.put(key, next.isEmpty() ? null : next);
    }

    private void checkPartition(String node) {
        if (samplePartitions <= 0) {
            return;
        }
        Optional<RecordMetadata> meta = context.recordMetadata();
        if (meta.isEmpty() || meta.get().partition() == checkedPartition && node.equals(checkedNode)) {
            return;
        }
        if (meta.get().partition() == NodePartitioner.partition(node, samplePartitions)) {
            checkedNode = node;
            checkedPartition = meta.get().partition();
            return;
        }
        misrouted.increment();
        if (misroutedNodesLogged.add(node)) {
            log.warn("samples of node {} arrive on {} partition {}, not {} as the node partitioner gives: their "
                            + "producer does not partition by node (set partitioner.class={}); this node's job "
                            + "assignment and collector silence are judged apart", node, meta.get().topic(),
                    meta.get().partition(), NodePartitioner.partition(node, samplePartitions),
                    NodePartitioner.class.getName());
        }
    }
}
