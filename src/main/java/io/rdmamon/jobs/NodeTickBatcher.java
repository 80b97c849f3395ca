package io.rdmamon.jobs;

import io.rdmamon.config.StoreType;
import io.rdmamon.state.ObjectStore;
import io.rdmamon.state.ObjectStores;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns each node's sampling pass into one {@link JobEventBatch} per job holding something on the node, keyed by job
 * uid: the job side then gets one record per node and second instead of one per sample. A pass is a node's samples
 * of one sampling interval, whatever their {@code ts}: a collector may stamp every sample of a pass alike, or each NIC
 * when it reads it (tens of ms apart, as the contract allows). A sample begins a newer pass when its {@code ts} is at
 * least half its {@code intervalMs} past the pass's first sample, or when its port (or host interface) is already in
 * the pass with an older {@code ts}; one half an interval or more before it is a straggler of an older pass. The pass
 * is complete when as many samples arrived as in the node's previous pass, when a sample of a newer pass arrives, or
 * at the latest {@code flushAfter} of wall time after its first sample (a port that went away); it goes on at its
 * first sample's time. The first pass of a node after a start, whose size is not known yet, and stragglers of older
 * passes go on sample by sample. Open passes are kept in an {@link ObjectStore}, so a commit in the middle of one
 * loses nothing.
 *
 * <p>A node's port samples and host samples are batched as two passes: they come from two topics, each in order in
 * its own partition, but the task does not wait for an empty partition ({@code max.task.idle.ms=-1}), so a host
 * sample of a later pass may come before the port samples of an earlier one. Counted together, such a host sample
 * would close the port pass early and turn its remaining samples into stragglers. They are counted apart and sent
 * together: a complete host pass joins the node's port pass of the same time, or waits for it if it has not begun
 * (both topics' records of one time come in either order), so the job side gets one batch per node pass, not two.
 * A node's GPU samples are a pass of their own, sent alone: the GPU source keeps its own clock, so its times need not
 * match the port passes' (one more batch per node pass, for all the node's GPUs).
 *
 * <p>Samples re-judged for a late hold ({@link AssignedInput#late()}) were counted in their pass when first judged;
 * {@link NodeAssigner} sends them a node pass at a time, one right after another within one of its records, the last
 * marked ({@link AssignedInput#passEnd()}): each such pass goes on as one batch too.
 */
public final class NodeTickBatcher implements Processor<String, AssignedInput, String, JobEventBatch> {
    public static final String STORE = "node-ticks";
    /** The processor's name: the job side's first, which {@link NodeAssigner} sends late-judged samples to. */
    public static final String PROCESSOR = "node-ticks";
    /** Suffix of a node's host-sample pass key (node names contain no {@code /}). */
    private static final String HOST_PASS = "/hosts";
    /** Suffix of a node's GPU-sample pass key: the GPUs are read on a clock of their own, so their pass goes alone. */
    private static final String GPU_PASS = "/gpus";

    /**
     * The newest pass time of a node, how many of its samples came, the size of its previous pass (0: unknown), the
     * wall time its open pass got its first sample (0: none open), and the open pass itself: the store's object, so a
     * sample needs no store lookup, only a put to mark it changed.
     */
    private static final class Pass {
        /** The time of the pass: its first sample's. */
        long ts = Long.MIN_VALUE;
        /** Samples stamped closer than this to {@link #ts} are of the pass: half its sampling interval by default. */
        long within = 1;
        /** The ports (host interfaces) of the pass so far, by sample key: one coming again begins a newer pass. */
        final Set<String> members = new HashSet<>();
        int seen;
        int size;
        long openedAt;
        NodeTick open;
        /** Whether {@code open} was looked up in the store: a pass left open before a restart is there. */
        boolean loaded;
        /** A host pass only: {@code open} is complete and waits for the node's port pass of the same time. */
        boolean held;

        /** Whether two samples (or passes) of the node at these times are of one sampling interval. */
        boolean sameInterval(long ts, long other) {
            return Math.abs(ts - other) < within;
        }

        /**
         * Where a sample of {@code key} at {@code ts} belongs: the current pass (counted in it), a newer one (which it
         * begins), or an older one (a straggler, not counted).
         */
        Place place(String key, long ts, long within) {
            boolean again = members.contains(key);
            if (this.ts == Long.MIN_VALUE || ts - this.ts >= this.within || again && ts > this.ts) {
                if (seen > 0) {
                    size = seen;
                }
                this.ts = ts;
                this.within = within > 0 ? within : this.within;
                members.clear();
                seen = 0;
            } else if (again || this.ts - ts >= this.within) {
                return Place.OLDER;
            }
            members.add(key);
            seen++;
            return Place.CURRENT;
        }
    }

    private enum Place { CURRENT, OLDER }

    private final Duration flushAfter;
    /** {@code streams.jobs.pass.spread.ms}: -1 for half the samples' interval. */
    private final long spreadMs;
    /** Each node's current pass: in memory, after a restart the first pass is passed on sample by sample. */
    private final Map<String, Pass> passes = new HashMap<>();
    /** The re-judged pass being gathered, and its node: never open across records of {@link NodeAssigner}. */
    private NodeTick latePass;
    private String latePassNode;
    private ProcessorContext<String, JobEventBatch> context;
    private ObjectStore<NodeTick> ticks;

    private NodeTickBatcher(Duration flushAfter, long spreadMs) {
        this.flushAfter = flushAfter;
        this.spreadMs = spreadMs;
    }

    /** @param spreadMs {@code streams.jobs.pass.spread.ms}: -1 for half the samples' interval */
    public static ProcessorSupplier<String, AssignedInput, String, JobEventBatch> supplier(Duration flushAfter,
                                                                                          long spreadMs,
                                                                                          StoreType storeType) {
        return new ProcessorSupplier<>() {
            @Override
            public Processor<String, AssignedInput, String, JobEventBatch> get() {
                return new NodeTickBatcher(flushAfter, spreadMs);
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return Set.of(ObjectStores.builder(STORE, NodeTick.class, storeType));
            }
        };
    }

    @Override
    public void init(ProcessorContext<String, JobEventBatch> context) {
        this.context = context;
        this.ticks = context.getStateStore(STORE);
        // a task closed dirty (an aborted transaction) may be initialised again on this processor, its stores restored
        // from the changelogs: an open pass held from before would be stale
        passes.clear();
        latePass = null;
        context.schedule(flushAfter, PunctuationType.WALL_CLOCK_TIME, this::flushOverdue);
    }

    @Override
    public void process(Record<String, AssignedInput> record) {
        AssignedInput in = record.value();
        long ts = record.timestamp();
        if (latePass != null && (!in.late() || !latePassNode.equals(in.node()))) {
            emitLatePass(); // its end was not marked: not expected, but nothing is lost
        }
        if (in.late()) {
            if (latePass == null) {
                latePass = NodeTick.open(ts);
                latePassNode = in.node();
            }
            latePass.add(JobEvents.fanOut(in));
            if (in.passEnd()) {
                emitLatePass();
            }
            return;
        }
        String passKey = in.port() != null ? in.port().node()
                : in.host() != null ? in.host().node() + HOST_PASS : in.gpu().node() + GPU_PASS;
        Pass pass = passes.computeIfAbsent(passKey, n -> new Pass());
        long intervalMs = in.port() != null ? in.port().intervalMs()
                : in.host() != null ? in.host().intervalMs() : in.gpu().intervalMs();
        // a first sample's intervalMs is 0 (its rates unknown): the pass keeps what it had
        long within = spreadMs >= 0 ? spreadMs + 1 : intervalMs / 2;
        String member = in.port() != null ? in.port().key() : in.host() != null ? in.host().key() : in.gpu().key();
        Place place = pass.place(member, ts, within);
        if (!pass.loaded) {
            pass.open = ticks.get(passKey);
            pass.loaded = true;
        }
        NodeTick tick = pass.open;
        if (tick != null && (tick.ts() != pass.ts || place == Place.OLDER)) {
            // a newer pass began (or a straggler of an older one came): the open one is as complete as it gets
            emit(in.port() != null ? withHosts(passKey, tick) : tick);
            closePass(passKey, pass);
            tick = null;
        }
        if (pass.size == 0 || place == Place.OLDER) {
            // the node's first pass since start (its size unknown), or a straggler: not held back
            emit(NodeTick.open(ts).add(JobEvents.fanOut(in)));
            return;
        }
        if (tick == null) {
            tick = NodeTick.open(pass.ts);
            pass.open = tick;
            pass.openedAt = context.currentSystemTimeMs();
        }
        tick.add(JobEvents.fanOut(in));
        if (pass.seen < pass.size) {
            ticks.put(passKey, tick);
        } else if (in.port() != null) {
            emit(withHosts(passKey, tick));
            closePass(passKey, pass);
        } else if (in.gpu() != null || !joinPorts(in.host().node(), passKey, pass, tick)) {
            emit(tick);
            closePass(passKey, pass);
        }
    }

    /**
     * A node's complete host pass goes into its port pass of the same time if that is open, or waits for it if it has
     * not begun. False: it goes alone (a node without RDMA ports, or its port pass of that time already sent).
     */
    private boolean joinPorts(String node, String hostKey, Pass hosts, NodeTick hostTick) {
        Pass ports = passes.get(node);
        if (ports == null || ports.ts == Long.MIN_VALUE) {
            return false;
        }
        if (ports.open != null && ports.sameInterval(ports.open.ts(), hostTick.ts())) {
            ticks.put(node, ports.open.join(hostTick));
            closePass(hostKey, hosts);
            return true;
        }
        if (hostTick.ts() - ports.ts >= ports.within) {
            ticks.put(hostKey, hostTick);
            hosts.held = true;
            return true;
        }
        return false;
    }

    /** The node's port pass, with its held host pass of the same time if there is one. */
    private NodeTick withHosts(String node, NodeTick portTick) {
        String hostKey = node + HOST_PASS;
        Pass hosts = passes.get(hostKey);
        if (hosts != null && hosts.held && hosts.open != null
                && passes.get(node).sameInterval(hosts.open.ts(), portTick.ts())) {
            portTick.join(hosts.open);
            closePass(hostKey, hosts);
        }
        return portTick;
    }

    @Override
    public void close() {
        passes.clear();
    }

    private void closePass(String passKey, Pass pass) {
        ticks.delete(passKey);
        pass.open = null;
        pass.openedAt = 0;
        pass.held = false;
    }

    private void flushOverdue(long wallNow) {
        for (var entry : ticks.all().entrySet()) {
            Pass pass = passes.computeIfAbsent(entry.getKey(), n -> new Pass());
            if (pass.openedAt == 0) {
                pass.openedAt = wallNow; // open since before a restart
            }
            if (wallNow - pass.openedAt >= flushAfter.toMillis()) {
                emit(entry.getValue());
                closePass(entry.getKey(), pass);
                pass.loaded = true;
            }
        }
    }

    private void emitLatePass() {
        emit(latePass);
        latePass = null;
    }

    private void emit(NodeTick tick) {
        Map<String, List<JobEvent>> byJob = new LinkedHashMap<>();
        for (NodeTick.Routed routed : tick.events()) {
            byJob.computeIfAbsent(routed.uid(), uid -> new ArrayList<>()).add(routed.event());
        }
        byJob.forEach((uid, events) -> context.forward(new Record<>(uid, new JobEventBatch(events), tick.ts())));
    }
}
