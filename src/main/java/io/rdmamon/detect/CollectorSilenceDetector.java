package io.rdmamon.detect;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.config.StoreType;
import io.rdmamon.jobs.AssignedInput;
import io.rdmamon.jobs.NodeAssigner;
import io.rdmamon.model.Alert;
import io.rdmamon.state.ObjectStore;
import io.rdmamon.state.ObjectStores;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * COLLECTOR_SILENT: a node from which no sample (port or host interface) arrived for
 * {@code streams.collector.silent.after.ms}. Keyed by node. Silence cannot be seen in event time when nothing
 * arrives, so a wall-clock punctuator checks every {@code streams.punctuate.interval.ms}; the alert's times are
 * still event times: {@code startsAt} = the node's last sample + its interval (the first missing sample),
 * {@code detectedAt} = last sample + the wall time waited. It resolves at the first new sample.
 *
 * <p>Arrival times are kept in memory only: after a restart every node counts as just seen, so the app's own downtime
 * is never reported as collector silence. Nor is the catch-up after it: while samples arrive more than the silence
 * threshold late, the nodes whose samples are still queued (on a partition read later, or on an instance further
 * behind) would look silent, so silence is not judged until samples are on time again. A node whose samples stay
 * late beyond {@code streams.collector.silent.catchup.max.ms} has a clock behind, and stops counting as catch-up.
 * A catch-up ends with an on-time sample, not with time alone: a task that gets nothing for a while in the middle of
 * one (seen in the sizing benchmark: one task of six starved for 15 s, and all its 41 nodes looked silent) is still
 * behind; only after {@code catchup.max.ms} without any sample is silence judged again.
 * Below the threshold, lateness still lengthens the wait: samples a few seconds behind come in bursts, one upstream
 * partition after the other, so silence is judged after the threshold plus the highest recent lateness. This is never a stall: {@link StallDetector} treats a silent node's ports
 * as unknown.
 *
 * <p>Each node's last heartbeat is also in a changelogged store, so that a node which never comes back after a
 * restart is still reported. The store is written when a node's heartbeat moved by half the silence threshold, not at
 * every pass: at one pass a second that was one changelog record per node and commit (a third of the live app's
 * changelog writes at 1,000 nodes). The price: after a restart, a node that never sends again is reported silent since
 * up to half a threshold before its real last sample.
 *
 * <p>A node that left is not silent: an in-pod collector (ACS) that stopped with its pod's job ({@link NodeJobs}), or
 * a node whose Node object was deleted ({@link NodeDepartures}: autoscaler scale-in, a reclaimed spot instance) and on
 * which no job runs. Its state is dropped and an open incident resolved. A deleted node on which a job still runs is
 * reported, naming the job, until the job lets it go.
 */
public final class CollectorSilenceDetector implements Processor<String, AssignedInput, String, Alert> {
    private static final Logger log = LoggerFactory.getLogger(CollectorSilenceDetector.class);
    static final String STORE = "collector-silent-state";

    private final long silentAfterMs;
    private final long forgetMs;
    private final Duration interval;
    private final AlertOutput output;
    private final long catchUpMaxMs;
    private final Counter skippedChecks;
    private final Counter departed;
    private final Counter departedNodes;
    private final Counter invalidNodes;
    /** The global table of the nodes topic; null when none is configured. */
    private final String nodesStore;
    private NodeDepartures departures;
    /** The job join's assignment history (read only): which jobs held a node then and now ({@link NodeJobs}). */
    private NodeJobs jobs;
    /** What this task knows of each node's collector; in memory (see {@link NodeLife}). */
    private final Map<String, NodeLife> nodes = new HashMap<>();
    /**
     * The last heartbeat that counts for catch-up was late: this task is behind until an on-time one arrives. A task
     * can get nothing at all for a while in the middle of a catch-up (the stream thread busy with other partitions);
     * that silence is its own, not the collectors'.
     */
    private boolean behind;
    /** Wall time of the last late heartbeat that counts for catch-up; silence waits a threshold after it. */
    private long lastLateAt;
    /** The highest lateness of a sample seen in the current window, and when (wall). */
    private long recentLateMs;
    private long recentLateAt;
    private ProcessorContext<String, Alert> context;
    private ObjectStore<Heartbeat> lastSeen;
    private IncidentBook incidents;
    private long startedAt;
    /** Wall time the last heartbeat of any node arrived at this task; 0 before the first. */
    private long lastArrival;

    /**
     * One node's collector as this task saw it: one lookup per sample instead of one per map. Nothing of it survives
     * a restart but the stored heartbeat: after one, every node counts as just seen, and its first sample looks its
     * incident up.
     */
    private static final class NodeLife {
        /** The node's last sample (event time) and its interval: exact, unlike the stored copy. */
        long ts;
        long intervalMs;
        /** The {@code ts} last written to the store, 0 when none. */
        long storedTs;
        /** Wall time its last sample arrived at. */
        long arrivedAt;
        /** Wall time since which its samples arrive late; 0 while they are on time. */
        long lateSince;
        /** Known to have no open incident, so a sample need not look one up. */
        boolean knownClear;

        NodeLife(Heartbeat stored, long startedAt) {
            arrivedAt = startedAt;
            if (stored != null) {
                ts = stored.ts();
                intervalMs = stored.intervalMs();
                storedTs = stored.ts();
            }
        }
    }

    private CollectorSilenceDetector(DetectorConfig cfg, Duration interval, AlertOutput output,
                                     Counter skippedChecks, Counter departed, Counter departedNodes,
                                     Counter invalidNodes, String nodesStore) {
        this.departed = departed;
        this.departedNodes = departedNodes;
        this.invalidNodes = invalidNodes;
        this.nodesStore = nodesStore;
        this.silentAfterMs = cfg.collectorSilentAfterMs();
        this.catchUpMaxMs = cfg.collectorCatchUpMaxMs();
        this.skippedChecks = skippedChecks;
        this.forgetMs = cfg.collectorForgetMs();
        this.interval = interval;
        this.output = output;
    }

    /**
     * @param nodesStore the global store of the nodes topic ({@link NodeDepartures}); null when there is none
     */
    public static ProcessorSupplier<String, AssignedInput, String, Alert> supplier(DetectorConfig cfg,
                                                                                   Duration punctuateInterval,
                                                                                   MeterRegistry registry,
                                                                                   StoreType storeType,
                                                                                   String nodesStore) {
        AlertOutput output = new AlertOutput(registry);
        Counter skipped = Counter.builder("rdmamon.streams.collector.silence.checks.skipped")
                .description("collector-silence checks not made because samples arrived late (catch-up)")
                .register(registry);
        Counter departed = Counter.builder("rdmamon.streams.collector.departed.pods")
                .description("in-pod collectors (ACS) that stopped with their pod's job and were forgotten instead of "
                        + "reported silent").register(registry);
        Counter departedNodes = Counter.builder("rdmamon.streams.collector.departed.nodes")
                .description("nodes whose Node object was deleted (scale-in, reclaimed spot instance) and whose "
                        + "silent collector was forgotten instead of reported").register(registry);
        Counter invalidNodes = Counter.builder("rdmamon.streams.nodes.invalid")
                .description("records of the nodes topic outside the contract, not used").register(registry);
        return new ProcessorSupplier<>() {
            @Override
            public Processor<String, AssignedInput, String, Alert> get() {
                return new CollectorSilenceDetector(cfg, punctuateInterval, output, skipped, departed, departedNodes,
                        invalidNodes, nodesStore);
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return Set.of(ObjectStores.builder(STORE, Heartbeat.class, storeType),
                        DetectorStores.incidentStore(Alert.COLLECTOR_SILENT, storeType));
            }
        };
    }

    @Override
    public void init(ProcessorContext<String, Alert> context) {
        this.context = context;
        this.lastSeen = context.getStateStore(STORE);
        this.jobs = new NodeJobs(context.getStateStore(NodeAssigner.STORE));
        // a global store: readable from every task without being connected to this processor
        this.departures = new NodeDepartures(nodesStore == null ? null : context.getStateStore(nodesStore),
                invalidNodes);
        this.incidents = new IncidentBook(Alert.COLLECTOR_SILENT, context.getStateStore(
                DetectorStores.incidentStoreName(Alert.COLLECTOR_SILENT)));
        this.startedAt = context.currentSystemTimeMs();
        // as after a restart: a task closed dirty may be initialised again on this processor, its store restored
        nodes.clear();
        context.schedule(interval, PunctuationType.WALL_CLOCK_TIME, this::checkSilence);
    }

    @Override
    public void process(Record<String, AssignedInput> record) {
        // every RDMA or host-interface sample is a sign of life of its node's collector
        AssignedInput in = record.value();
        if (in.gpu() != null) {
            return; // the GPU source has a clock and a pace of its own; a node without it is not silent
        }
        String node = in.port() != null ? in.port().node() : in.host().node();
        long ts = in.port() != null ? in.port().ts() : in.host().ts();
        long now = context.currentSystemTimeMs();
        NodeLife life = life(node);
        life.arrivedAt = now;
        lastArrival = now;
        noteLateness(node, life, ts, now);
        if (ts > life.ts) {
            life.ts = ts;
            life.intervalMs = in.port() != null ? in.port().intervalMs() : in.host().intervalMs();
            if (life.storedTs == 0 || ts - life.storedTs >= silentAfterMs / 2) {
                lastSeen.put(node, new Heartbeat(node, ts, life.intervalMs));
                life.storedTs = ts;
            }
        }
        if (!life.knownClear) {
            life.knownClear = true;
            publish(incidents.apply(node, Observation.cleared(Subject.node(node), ts)));
        }
    }

    /**
     * The node's state; the first time this task sees it, from its stored heartbeat (if any) and as seen at the
     * task's start.
     */
    private NodeLife life(String node) {
        NodeLife life = nodes.get(node);
        if (life == null) {
            life = new NodeLife(lastSeen.get(node), startedAt);
            nodes.put(node, life);
        }
        return life;
    }

    private void noteLateness(String node, NodeLife life, long ts, long now) {
        long late = now - ts;
        if (late <= silentAfterMs) {
            life.lateSince = 0;
            behind = false;
            if (late >= recentLateMs || now - recentLateAt > lateWindowMs()) {
                recentLateMs = Math.max(0, late);
                recentLateAt = now;
            }
            return;
        }
        if (life.lateSince == 0) {
            life.lateSince = now;
        }
        if (now - life.lateSince <= catchUpMaxMs) {
            if (!behind && now >= lastLateAt + silentAfterMs) {
                log.info("samples arrive up to {} s late (node {}): catching up, collector silence is not judged "
                        + "until they are on time", late / 1000, node);
            }
            behind = true;
            lastLateAt = now;
        }
    }

    private void checkSilence(long wallNow) {
        // behind and then nothing for catchup.max: the collectors did stop (or the app is stuck): judge again
        if (wallNow - lastLateAt < silentAfterMs || behind && wallNow - lastLateAt < catchUpMaxMs) {
            skippedChecks.increment();
            return;
        }
        // samples running some seconds behind also arrive in bursts, partition by partition: wait that much longer
        long threshold = silentAfterMs + (wallNow - recentLateAt <= lateWindowMs() ? recentLateMs : 0);
        // the store knows every node, those not seen since a restart too
        List<String> known = new ArrayList<>(lastSeen.all().keySet());
        int fired = 0;
        for (String node : known) {
            NodeLife life = life(node);
            long waited = wallNow - life.arrivedAt;
            Long deletedAt = waited >= threshold ? deletedAt(node, life) : null;
            if (waited >= threshold && jobs.podEndedWithItsJob(node, life.ts)) {
                // an in-pod collector (ACS) stops with its pod: not silence, a node that left
                departed.increment();
                forget(node, life, waited);
            } else if (deletedAt != null && !jobs.running(node)) {
                // its Node object was deleted (scale-in, spot reclaim): the collector went with the machine
                departedNodes.increment();
                forget(node, life, waited);
            } else if (waited >= forgetMs) {
                forget(node, life, waited);
            } else if (waited >= threshold) {
                life.knownClear = false;
                long firstMissing = life.ts + Math.max(life.intervalMs, 1);
                String left = deletedAt == null ? "" : "; the node left the cluster (Node deleted at "
                        + Instant.ofEpochMilli(deletedAt) + ") while a job still runs on it";
                Condition condition = new Condition(firstMissing, Condition.WARNING, "collector on node "
                        + node + " silent: no sample for " + waited / 1000 + " s (last sample at "
                        + Instant.ofEpochMilli(life.ts) + "); its jobs' stall detection is suspended" + left
                        + jobs.runningText(node), Map.of("silentSeconds", String.valueOf(waited / 1000)));
                Alert alert = incidents.apply(node, Observation.holds(Subject.node(node), condition,
                        life.ts + waited));
                fired += alert == null ? 0 : 1;
                publish(alert);
            }
        }
        if (fired > 1) {
            // many nodes of one task at once: a dead rack, a bad collector roll-out, or this task's own input
            // stalled; the last line tells them apart in hindsight
            log.warn("{} nodes of this task went silent at once (of {} it knows); its last heartbeat from any node "
                    + "arrived {} s ago, threshold {} s", fired, known.size(),
                    lastArrival == 0 ? "never" : String.valueOf((wallNow - lastArrival) / 1000), threshold / 1000);
        }
    }

    /**
     * When the node's Node object was deleted, if it was and its collector's last sample is not newer than that
     * (within a silence threshold, for the clocks of the watcher and the collector): a sample well after a
     * deletion means the node came back under its name and its Present record is still on its way.
     */
    private Long deletedAt(String node, NodeLife life) {
        Long at = departures.deletedAt(node);
        return at != null && life.ts <= at + silentAfterMs ? at : null;
    }

    /** Drops what is known of a node that left, resolving its open incident. */
    private void forget(String node, NodeLife life, long waited) {
        lastSeen.delete(node);
        nodes.remove(node);
        incidents.closeAll(node, life.ts + waited).forEach(this::publish);
    }

    private long lateWindowMs() {
        return 4 * silentAfterMs;
    }

    private void publish(Alert alert) {
        output.publish(context, alert);
    }
}
