package io.rdmamon.clock;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.jobs.NodeInput;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Puts every sample, in its node's partition and before anything judges it, in the time of the other nodes
 * ({@link ClockOffsets}): a node whose clock is off by more than {@code streams.clock.skew.max.ms} has its samples'
 * {@code ts} (and the record timestamp, where it was that {@code ts}) moved by its offset, so its peers do not look
 * silent, its traffic lines up with theirs in the job windows, and a stall shows when it happens. Hold changes pass
 * untouched (their times are the job source's).
 *
 * <p>What an operator sees: {@code rdmamon_streams_clock_offset_seconds{node}} for every node found off by more than
 * the bound since the start (its current offset against the others), {@code rdmamon_streams_clock_skewed_nodes}, the
 * samples corrected ({@code rdmamon_streams_clock_corrected_samples_total}), and a warning naming the node and its
 * offset when it goes off, beyond the contract's limit (then left uncorrected), and back in step.
 *
 * <p>Offsets are in memory, per task: after a restart they are learnt again from the first samples.
 */
public final class ClockCorrection implements Processor<String, NodeInput, String, NodeInput> {
    private static final Logger log = LoggerFactory.getLogger(ClockCorrection.class);

    private final long boundMs;
    private final long limitMs;
    private final Counter corrected;
    private final Map<String, AtomicLong> offsets;
    private final WallClockReference wall;
    private final MeterRegistry registry;
    private ClockOffsets clocks;
    private ProcessorContext<String, NodeInput> context;

    private ClockCorrection(long boundMs, long limitMs, Counter corrected, Map<String, AtomicLong> offsets,
                            WallClockReference wall, MeterRegistry registry) {
        this.boundMs = boundMs;
        this.limitMs = limitMs;
        this.corrected = corrected;
        this.offsets = offsets;
        this.wall = wall;
        this.registry = registry;
    }

    /**
     * @param boundMs {@code streams.clock.skew.max.ms}: a node off by more is judged in corrected time
     * @param limitMs {@code streams.contract.max.future.ms}: a node off by more keeps its own times
     */
    public static ProcessorSupplier<String, NodeInput, String, NodeInput> supplier(long boundMs, long limitMs,
                                                                                  MeterRegistry registry) {
        Counter corrected = Counter.builder("rdmamon.streams.clock.corrected.samples")
                .description("Samples whose time was moved by their node's clock offset against the other nodes")
                .register(registry);
        // the offsets of the nodes found off, shared by the tasks of this instance (a node is in one of them)
        Map<String, AtomicLong> offsets = new ConcurrentHashMap<>();
        Gauge.builder("rdmamon.streams.clock.skewed.nodes", offsets,
                        m -> m.values().stream().filter(o -> Math.abs(o.get()) > boundMs).count())
                .description("Nodes whose clock is now off by more than streams.clock.skew.max.ms from the others'")
                .register(registry);
        // the app's wall clock, a reference across the instance's tasks: a partition may hold one or two nodes
        WallClockReference wall = new WallClockReference(boundMs);
        return () -> new ClockCorrection(boundMs, limitMs, corrected, offsets, wall, registry);
    }

    @Override
    public void init(ProcessorContext<String, NodeInput> context) {
        this.context = context;
        this.clocks = new ClockOffsets(boundMs, limitMs, wall, this::report);
    }

    @Override
    public void process(Record<String, NodeInput> record) {
        NodeInput in = record.value();
        if (in.update() != null) {
            context.forward(record);
            return;
        }
        String node = in.node();
        long ts = in.ts();
        // the app's wall clock; in a replay the replay's own, so a replay stays deterministic
        long correction = clocks.observe(node, ts, context.currentSystemTimeMs());
        AtomicLong shown = offsets.get(node);
        if (shown != null) {
            shown.set(clocks.offsetMs(node));
        }
        if (correction == 0) {
            context.forward(record);
            return;
        }
        corrected.increment();
        long fixed = ts - correction;
        NodeInput moved = in.withTs(fixed);
        // the record timestamp moves with the sample's own time; one set otherwise (a producer's time of sending,
        // LogAppendTime) is not the collector's clock and stays
        context.forward(record.withValue(moved).withTimestamp(record.timestamp() == ts ? fixed : record.timestamp()));
    }

    private void report(String node, ClockOffsets.State before, ClockOffsets.State after, long offset, int peers) {
        String off = String.format("%.1f s %s", Math.abs(offset) / 1000.0, offset > 0 ? "ahead of" : "behind");
        switch (after) {
            case CORRECTED -> log.warn("clock of node {} is {} the cluster's (this app's clock and {} other nodes "
                    + "of its partition; more than {} ms, streams.clock.skew.max.ms): its samples are judged in "
                    + "corrected time", node, off, peers, boundMs);
            case BEYOND_LIMIT -> log.warn("clock of node {} is {} the cluster's (this app's clock and {} other nodes "
                    + "of its partition), beyond the contract's {} ms: its samples are judged by their own times, "
                    + "uncorrected", node, off, peers, limitMs);
            case IN_STEP -> log.info("clock of node {} is back in step with the cluster's ({}); was {}", node, off,
                    before);
        }
        offsets.computeIfAbsent(node, n -> {
            AtomicLong value = new AtomicLong();
            Gauge.builder("rdmamon.streams.clock.offset", value, v -> v.get() / 1000.0).baseUnit("seconds")
                    .description("The node's clock against the median of the other nodes' (positive: ahead), for "
                            + "nodes found off by more than streams.clock.skew.max.ms since the start")
                    .tag("node", n).register(registry);
            return value;
        }).set(offset);
    }
}
