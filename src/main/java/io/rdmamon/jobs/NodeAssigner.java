package io.rdmamon.jobs;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.collector.LogLimiter;
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

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
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
    /**
     * Live, a job's hold reaches its samples a commit or two after its record: the seconds before it are a Running
     * pod's start, counted but not worth a warning. Later than this, it is a backlog or a late record.
     */
    private static final long LATE_WARN_MS = 30_000;
    /** One warning per job and minute: a job's record reaches all its devices at once. */
    private static final LogLimiter LATE_LOG = new LogLimiter(Duration.ofMinutes(1));

    private final long retentionMs;
    private final int samplePartitions;
    private final Counter misrouted;
    private final Counter lateAssignments;
    private final Set<String> misroutedNodesLogged = new HashSet<>();
    /**
     * Per device and node key, the newest sample time judged here: a job's hold that starts before it came too late
     * for those samples. In memory: after a restart, late holds go unnoticed until the first sample of the key.
     */
    private final Map<String, long[]> newestSample = new HashMap<>();
    /** The last node found in its right partition: a node's samples come together, and the hash is per sample. */
    private String checkedNode;
    private int checkedPartition = -1;
    private ProcessorContext<String, AssignedInput> context;
    private ObjectStore<AssignmentHistory> histories;

    private NodeAssigner(long retentionMs, int samplePartitions, Counter misrouted, Counter lateAssignments) {
        this.retentionMs = retentionMs;
        this.samplePartitions = samplePartitions;
        this.misrouted = misrouted;
        this.lateAssignments = lateAssignments;
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
        Counter late = Counter.builder("rdmamon.streams.late.job.assignments")
                .description("Jobs' holds on a device or node that reached the samples' partition after samples of "
                        + "their time had been judged: those samples counted for no job (or the previous one)")
                .register(registry);
        return new ProcessorSupplier<>() {
            @Override
            public Processor<String, NodeInput, String, AssignedInput> get() {
                return new NodeAssigner(retentionMs, samplePartitions, misrouted, late);
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
            judged(key, record.timestamp());
            context.forward(record.withValue(new AssignedInput(in.port(), null, at(key, record.timestamp()))));
        } else if (in.host() != null) {
            checkPartition(in.host().node());
            String key = AssignmentKeys.node(in.host().node());
            judged(key, record.timestamp());
            context.forward(record.withValue(new AssignedInput(null, in.host(), at(key, record.timestamp()))));
        }
    }

    private void judged(String key, long ts) {
        long[] newest = newestSample.get(key);
        if (newest == null) {
            newestSample.put(key, new long[]{ts});
        } else if (ts > newest[0]) {
            newest[0] = ts;
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
        long[] newest = newestSample.get(key);
        if (update.holder() != null && newest != null && newest[0] >= ts) {
            lateAssignments.increment();
            if (newest[0] - ts >= LATE_WARN_MS && LATE_LOG.admit(update.uid()) != LogLimiter.SUPPRESS) {
                log.warn("job {} holds {} from {}, but samples of {} up to {} s later were judged before this "
                                + "reached them: they count for no job. The job's record came after its samples: "
                                + "published late, or read after them when the app caught up a backlog (counted as "
                                + "rdmamon_streams_late_job_assignments_total)", update.uid(), key,
                        java.time.Instant.ofEpochMilli(ts), key, (newest[0] - ts) / 1000);
            }
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
