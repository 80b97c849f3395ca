package io.rdmamon.jobs;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.config.StoreType;
import io.rdmamon.model.GpuSample;
import io.rdmamon.model.NodePartitioner;
import io.rdmamon.model.PortSample;
import io.rdmamon.state.ObjectStore;
import io.rdmamon.state.ObjectStores;
import io.rdmamon.support.LogLimiter;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The job-metadata join, in each node's own partition: folds the jobs' {@link HolderUpdate}s into an
 * {@link AssignmentHistory} per device and node, and gives every port and host sample the assignment valid at the
 * sample's own timestamp. Samples, host samples and hold changes of one node share a partition (the
 * {@link NodePartitioner} contract, or {@link SamplePartitionCheck} moved them there), so nothing is re-partitioned
 * per sample. Hold changes of one key are assumed to
 * arrive in {@code updatedAt} order, which holds when one watcher publishes the jobs.
 *
 * <p>A job's hold reaches the samples' partition a commit or more after its record (through the repartition topic),
 * so samples processed meanwhile, a backlog's by the thousand, found no job. Those samples are kept for
 * {@code streams.jobs.late.grace.ms} of wall time ({@link UnheldSamples}); a hold that comes within it gives them to
 * the job after all: they go to the job side ({@code jobSide}, the {@link NodeTickBatcher}) again, marked late, in
 * time order, node pass by node pass, once the node's holds that come together are in ({@link #rejudgeDue}). Link
 * health and the port detectors had them once, without the job.
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

    /** How many unassigned samples a task keeps at most for a late hold (about 10 MB). */
    static final int UNHELD_CAPACITY = 20_000;

    private final long retentionMs;
    private final Counter lateAssignments;
    private final Counter rejudged;
    private final String jobSide;
    private final UnheldSamples unheld;
    /** streams.jobs.late.grace.ms 0: none kept (late holds re-judge nothing). */
    private final boolean keepsUnheld;
    /**
     * Per device and node key, the newest sample time judged here: a job's hold that starts before it came too late
     * for those samples. In memory: after a restart, late holds go unnoticed until the first sample of the key.
     */
    private final Map<String, long[]> newestSample = new HashMap<>();
    /** Nodes with kept samples that a hold processed since the last sample covers: {@link #rejudgeDue}. */
    private final Set<String> rejudgeDue = new LinkedHashSet<>();
    private ProcessorContext<String, AssignedInput> context;
    private ObjectStore<AssignmentHistory> histories;

    private NodeAssigner(long retentionMs, long lateGraceMs, String jobSide, Counter lateAssignments,
                         Counter rejudged) {
        this.retentionMs = retentionMs;
        this.jobSide = jobSide;
        this.lateAssignments = lateAssignments;
        this.rejudged = rejudged;
        this.unheld = new UnheldSamples(lateGraceMs, UNHELD_CAPACITY);
        this.keepsUnheld = lateGraceMs > 0;
    }

    /**
     * @param lateGraceMs how long (wall clock) samples judged without a job wait for a late hold
     * @param jobSide     the child that gets such samples again when one comes: the job side's first processor
     */
    public static ProcessorSupplier<String, NodeInput, String, AssignedInput> supplier(long retentionMs,
                                                                                       long lateGraceMs,
                                                                                       String jobSide,
                                                                                       MeterRegistry registry,
                                                                                       StoreType storeType) {
        Counter late = Counter.builder("rdmamon.streams.late.job.assignments")
                .description("Jobs' holds on a device or node that reached the samples' partition after samples of "
                        + "their time had been judged: those samples counted for no job (or the previous one)")
                .register(registry);
        Counter rejudged = Counter.builder("rdmamon.streams.rejudged.samples")
                .description("Samples judged without a job and given to one when its hold came late (within "
                        + "streams.jobs.late.grace.ms): the job side had them after all")
                .register(registry);
        return new ProcessorSupplier<>() {
            @Override
            public Processor<String, NodeInput, String, AssignedInput> get() {
                return new NodeAssigner(retentionMs, lateGraceMs, jobSide, late, rejudged);
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
        // a task closed dirty may be initialised again on this processor: what it kept was judged before
        unheld.clear();
        rejudgeDue.clear();
        context.schedule(Duration.ofSeconds(1), PunctuationType.WALL_CLOCK_TIME, wallNow -> {
            rejudgeDue();
            unheld.dropOld(wallNow);
        });
    }

    @Override
    public void process(Record<String, NodeInput> record) {
        NodeInput in = record.value();
        if (in.update() != null) {
            hold(record.key(), in.update(), record.timestamp());
            return;
        }
        rejudgeDue();
        if (in.port() != null) {
            judge(record, in.port().node(), AssignmentKeys.device(in.port().node(), in.port().device()), null);
        } else if (in.host() != null) {
            // a job that runs its collectives over this interface holds it as its device: it is that job's port too
            judge(record, in.host().node(), AssignmentKeys.node(in.host().node()),
                    AssignmentKeys.device(in.host().node(), in.host().iface()));
        } else {
            judgeGpu(record, in.gpu());
        }
    }

    /**
     * The sample with the assignment of {@code key} at its time, onward; a host sample also as its socket job's port
     * when {@code socketKey} is held. Kept for a late hold when judged without a job: {@link #rejudge} covers both.
     */
    private void judge(Record<String, NodeInput> record, String node, String key, String socketKey) {
        judged(key, record.timestamp());
        Assignment assignment = at(key, record.timestamp());
        Assignment socket = Assignment.NONE;
        if (socketKey != null) {
            judged(socketKey, record.timestamp());
            socket = at(socketKey, record.timestamp());
        }
        if (assignment.isEmpty() && keepsUnheld) {
            // the socket's hold is a job's like the node's: kept for it only where the node's is missing too
            unheld.add(node, record, context.currentSystemTimeMs(), socketKey == null || !socket.isEmpty()
                    ? new String[]{key} : new String[]{key, socketKey});
        }
        forward(record, assignment, false, false, false);
        if (!socket.isEmpty()) {
            forward(record, socket, true, false, false);
        }
    }

    /**
     * A GPU sample goes to the jobs holding its node whose ranks there hold that GPU (all of them when the ranks do
     * not say which GPUs they hold). Not kept for a late hold: the GPU evidence is only ever read over the last
     * seconds, long after a job's start.
     */
    private void judgeGpu(Record<String, NodeInput> record, GpuSample gpu) {
        String key = AssignmentKeys.node(gpu.node());
        judged(key, record.timestamp());
        forward(record, at(key, record.timestamp()).holdingGpu(gpu), false, false, false);
    }

    /**
     * A judged sample to every child, or when {@code late} to the job side only; {@code asSocket} (judged for its
     * interface's key, not its node's), a host sample goes as the socket job's port sample.
     */
    private void forward(Record<String, NodeInput> record, Assignment assignment, boolean asSocket, boolean late,
                         boolean passEnd) {
        NodeInput in = record.value();
        Record<String, AssignedInput> out;
        if (asSocket) {
            PortSample port = SocketPorts.of(in.host());
            out = record.withKey(port.key()).withValue(new AssignedInput(port, null, null, assignment, late,
                    passEnd));
        } else {
            out = record.withValue(new AssignedInput(in.port(), in.host(), in.gpu(), assignment, late, passEnd));
        }
        if (late) {
            context.forward(out, jobSide);
        } else {
            context.forward(out);
        }
    }

    /**
     * The kept samples that the holds processed since the last sample cover, to the job side, in time order and a
     * node pass at a time (the batcher sends each as one batch): before the next sample, or at the next punctuation
     * when none comes. A job's record gives each of its devices and nodes a hold of its own, which come one after
     * another: re-judged at each hold, a node's samples went to the job side a device at a time, each pass split
     * into one batch per device. Waiting for the next sample keeps them ahead of anything judged here with the job
     * (the node's later samples), and the punctuation bounds the wait by a second of wall time, so that they still
     * reach the job side about when what other tasks judge with the job from then on does (its windows wait for the
     * job's ranks, and close on the wall clock). A restart in between loses them, like the rest of what is kept
     * here.
     */
    private void rejudgeDue() {
        if (rejudgeDue.isEmpty()) {
            return;
        }
        unheld.rejudge(rejudgeDue, this::at, (record, assignment, own, passEnd) -> {
            rejudged.increment();
            forward(record, assignment, !own, true, passEnd);
        });
        rejudgeDue.clear();
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
        String rejudgeNode = null;
        if (update.holder() != null && newest != null && newest[0] >= ts) {
            lateAssignments.increment();
            String node = key.substring(0, key.indexOf('/'));
            if (unheld.holds(node, key, ts)) {
                rejudgeNode = node;
            }
            if (unheld.lostSince(key, ts) && newest[0] - ts >= LATE_WARN_MS
                    && LATE_LOG.admit(update.uid()) != LogLimiter.SUPPRESS) {
                log.warn("job {} holds {} from {}, but samples of {} up to {} s later were judged before this "
                                + "reached them, longer ago than streams.jobs.late.grace.ms: they count for no job. "
                                + "The job's record came after its samples: "
                                + "published late, or read after them when the app caught up a backlog (counted as "
                                + "rdmamon_streams_late_job_assignments_total)", update.uid(), key,
                        java.time.Instant.ofEpochMilli(ts), key, (newest[0] - ts) / 1000);
            }
        }
        AssignmentHistory next = (history == null ? new AssignmentHistory(null) : history).with(ts, after,
                retentionMs);
        histories.put(key, next.isEmpty() ? null : next);
        if (rejudgeNode != null) {
            rejudgeDue.add(rejudgeNode);
        }
    }
}
