package io.rdmamon.jobs;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.config.StoreType;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.JobRecord;
import io.rdmamon.state.ObjectStore;
import io.rdmamon.state.ObjectStores;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Tumbling event-time windows of each job's per-port traffic, each emitted once, when complete.
 *
 * <p>A window closes when every port of the job that is still reporting has sent a sample at or past the window's end
 * (plus {@code grace}), and every rank the job expects ({@link Holder#expectedRanks()}) has been heard from. Each
 * port's samples stay in order all the way here (one upstream task per port), so that is exact; the task's stream
 * time is not used, because after a restart with a backlog, upstream tasks catch up at different speeds and stream
 * time runs far ahead of the slower ports. A port from which nothing arrived for {@code portTimeout} of wall time (a
 * silent collector, a job that let the device go) is no longer waited for; a sample for an already closed window is
 * counted ({@code rdmamon_streams_late_samples_total}) and left out.
 *
 * <p>Ranks not heard from yet are waited for too, for {@code portTimeout} of wall time after the job's first sample
 * here: on a backlog read one partition after another, one partition's nodes can be minutes of event time ahead
 * before the other's first sample comes, so neither the reporting ports nor event time say that a rank is missing
 * (issue 34: the first windows had 2 of 4 ranks). Wall time, as for a silent port: a rank that never reports (a dead
 * node, one without a collector) holds the job's windows back that long once, not for ever; the replay's wall clock
 * is event time.
 *
 * <p>State: one {@link JobWindows} per job in an {@link ObjectStore}: open windows' per-port sums, each port's newest
 * sample time and the end of the last window emitted. A sample changes it in place; the changelog gets one record
 * per job and commit.
 */
public final class JobWindowProcessor implements Processor<String, JobEvent, String, JobWindow> {
    static final String STORE = "job-windows";
    private static final long FORGET_PORT_MS = 3_600_000;

    private final long sizeMs;
    private final long graceMs;
    private final long portTimeoutMs;
    private final Duration checkInterval;
    private final Counter lateSamples;
    /**
     * uid → port → wall time of its last sample (by job first: no key to build per sample); in memory: after a restart
     * every port counts as just heard from.
     */
    private final Map<String, Map<String, Long>> arrivedAt = new HashMap<>();
    /** uid → the ranks heard from since this processor first heard from the job; in memory, like {@link #arrivedAt}. */
    private final Map<String, RanksHeard> ranksHeard = new HashMap<>();
    private ProcessorContext<String, JobWindow> context;
    private ObjectStore<JobWindows> jobs;
    private long startedAt;

    private JobWindowProcessor(long sizeMs, long graceMs, long portTimeoutMs, Duration checkInterval,
                               Counter lateSamples) {
        this.sizeMs = sizeMs;
        this.graceMs = graceMs;
        this.portTimeoutMs = portTimeoutMs;
        this.checkInterval = checkInterval;
        this.lateSamples = lateSamples;
    }

    /**
     * @param size         window length
     * @param grace        extra wait after every reporting port passed the window end
     * @param portTimeout  wall time after which a port that sent nothing is no longer waited for
     * @param checkInterval wall-clock period of the completeness check
     */
    public static ProcessorSupplier<String, JobEvent, String, JobWindow> supplier(Duration size, Duration grace,
                                                                                  Duration portTimeout,
                                                                                  Duration checkInterval,
                                                                                  MeterRegistry registry,
                                                                                  StoreType storeType) {
        Counter late = Counter.builder("rdmamon.streams.late.samples")
                .description("Samples that arrived after their job-bandwidth window was emitted (left out of it)")
                .register(registry);
        return new ProcessorSupplier<>() {
            @Override
            public Processor<String, JobEvent, String, JobWindow> get() {
                return new JobWindowProcessor(size.toMillis(), grace.toMillis(), portTimeout.toMillis(),
                        checkInterval, late);
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return Set.of(ObjectStores.builder(STORE, new JobWindowsSerde(), storeType));
            }
        };
    }

    @Override
    public void init(ProcessorContext<String, JobWindow> context) {
        this.context = context;
        this.jobs = context.getStateStore(STORE);
        this.startedAt = context.currentSystemTimeMs();
        context.schedule(checkInterval, PunctuationType.WALL_CLOCK_TIME, this::closeCompleteWindows);
    }

    @Override
    public void process(Record<String, JobEvent> record) {
        JobSample js = record.value().port();
        if (record.value().lifecycle() != null) {
            rememberInstanceTypes(record.key(), record.value().lifecycle());
            return;
        }
        if (record.value().gpu() != null) {
            return; // read by the stall detector only
        }
        if (js == null) {
            addHost(record);
            return;
        }
        String uid = record.key();
        PortTraffic s = js.traffic();
        String port = s.key();
        JobWindows w = jobs.get(uid);
        if (w == null) {
            w = new JobWindows();
        }
        w.newest.merge(port, record.timestamp(), Math::max);
        long wallNow = context.currentSystemTimeMs();
        arrivedAt.computeIfAbsent(uid, u -> new HashMap<>()).put(port, wallNow);
        ranksHeard.computeIfAbsent(uid, u -> new RanksHeard(wallNow)).add(js.holder());
        jobs.put(uid, w);
        if (s.txBytesPerSec() == null && s.rxBytesPerSec() == null) {
            return;
        }
        long start = record.timestamp() - Math.floorMod(record.timestamp(), sizeMs);
        if (w.closedUntil != null && start < w.closedUntil) {
            lateSamples.increment();
            return;
        }
        TreeMap<String, PortWindow> ports = w.open.computeIfAbsent(start, k -> new TreeMap<>());
        PortWindow current = ports.get(port);
        ports.put(port, (current == null ? PortWindow.empty(js) : current).add(js));
    }

    /**
     * A host sample of one of the job's nodes, into its window. It does not hold windows open (only ports do), and one
     * that comes after its window was emitted is left out. One that comes before the job's first port sample is kept
     * for the rank wait: a node's samples given to the job late reach here host sample first when the node's own hold
     * came before its devices'. A job with no reporting port keeps none for long: the completeness check drops what is
     * left of it after that wait.
     */
    private void addHost(Record<String, JobEvent> record) {
        HostIfaceSample h = record.value().host();
        if (h == null) {
            return;
        }
        JobWindows w = jobs.get(record.key());
        if (w == null) {
            w = new JobWindows();
        }
        long start = record.timestamp() - Math.floorMod(record.timestamp(), sizeMs);
        if (w.closedUntil != null && start < w.closedUntil) {
            return;
        }
        ranksHeard.computeIfAbsent(record.key(), u -> new RanksHeard(context.currentSystemTimeMs()));
        TreeMap<String, HostWindow> hosts = w.hosts.computeIfAbsent(start, k -> new TreeMap<>());
        hosts.put(h.key(), hosts.getOrDefault(h.key(), HostWindow.EMPTY).add(h));
        jobs.put(record.key(), w);
    }

    /**
     * The node instance types of a Running job's record, kept until a record says it stopped: the windows need them
     * for the expected NIC figure, and a job's record comes once per change, not with its samples.
     */
    private void rememberInstanceTypes(String uid, JobRecord job) {
        Map<String, String> types = new TreeMap<>();
        if (JobRecord.RUNNING.equals(job.state())) {
            job.ranks().stream().filter(r -> r.instanceType() != null)
                    .forEach(r -> types.put(r.node(), r.instanceType()));
        }
        JobWindows w = jobs.get(uid);
        if (w == null && types.isEmpty() || w != null && w.instanceTypes.equals(types)) {
            return;
        }
        if (w == null) {
            w = new JobWindows();
        }
        w.instanceTypes = types;
        if (w.isEmpty()) {
            jobs.delete(uid);
        } else {
            jobs.put(uid, w);
        }
    }

    /** For each job: how far every reporting port has got, and which windows that completes. */
    private void closeCompleteWindows(long wallNow) {
        for (Map.Entry<String, JobWindows> job : jobs.all().entrySet()) {
            String uid = job.getKey();
            JobWindows w = job.getValue();
            long reached = Long.MAX_VALUE;
            Map<String, Long> arrivals = arrivedAt.computeIfAbsent(uid, u -> new HashMap<>());
            for (Iterator<Map.Entry<String, Long>> it = w.newest.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<String, Long> port = it.next();
                long silentFor = wallNow - arrivals.getOrDefault(port.getKey(), startedAt);
                if (silentFor >= FORGET_PORT_MS) {
                    it.remove();
                    arrivals.remove(port.getKey());
                }
                if (silentFor < portTimeoutMs) {
                    reached = Math.min(reached, port.getValue());
                }
            }
            RanksHeard heard = ranksHeard.get(uid);
            boolean waiting = heard != null && wallNow - heard.since < portTimeoutMs;
            if (w.newest.isEmpty() && waiting) {
                continue; // host samples only, so far: the job's ports may be on their way
            }
            if (w.newest.isEmpty()) {
                arrivedAt.remove(uid);
                ranksHeard.remove(uid);
                // nothing reports for this job any more: what is left of its windows goes (its node types stay
                // while it runs: its first samples are still to come, or its ports may report again)
                if (w.instanceTypes.isEmpty()) {
                    jobs.delete(uid);
                } else if (!w.open.isEmpty() || !w.hosts.isEmpty()) {
                    w.open.clear();
                    w.hosts.clear();
                    jobs.put(uid, w);
                }
                continue;
            }
            // a rank still to come may be on its way from a slower partition: nothing closes until it is in
            if (!waiting || !heard.missing()) {
                emitUpTo(uid, w, reached == Long.MAX_VALUE ? reached : reached - graceMs);
            }
            jobs.put(uid, w);
        }
    }

    private void emitUpTo(String uid, JobWindows w, long reached) {
        while (!w.open.isEmpty() && w.open.firstKey() + sizeMs <= reached) {
            Map.Entry<Long, TreeMap<String, PortWindow>> due = w.open.pollFirstEntry();
            long start = due.getKey();
            List<PortWindow> ports = List.copyOf(due.getValue().values());
            PortWindow first = ports.get(0);
            TreeMap<String, HostWindow> hosts = w.hosts.remove(start);
            JobWindow window = new JobWindow(uid, first.job(), first.namespace(), start, start + sizeMs,
                    first.expectedRanks(), ports, hosts == null ? List.of() : List.copyOf(hosts.values()),
                    w.instanceTypes);
            context.forward(new Record<>(uid, window, start + sizeMs));
            if (w.closedUntil == null || start + sizeMs > w.closedUntil) {
                w.closedUntil = start + sizeMs;
            }
        }
        if (w.closedUntil != null) {
            // host traffic of windows in which no port reported: no record to add it to
            w.hosts.headMap(w.closedUntil).clear();
        }
    }

    /** The ranks a job's samples here have come from, against the ranks it expects. */
    private static final class RanksHeard {
        final long since;
        final Set<Integer> ranks = new HashSet<>();
        int expected;

        RanksHeard(long since) {
            this.since = since;
        }

        /** Per sample: cheap once every expected rank is in. */
        void add(Holder holder) {
            expected = holder.expectedRanks();
            if (ranks.size() < expected) {
                for (JobRecord.Rank r : holder.ranks()) {
                    ranks.add(r.rank());
                }
            }
        }

        boolean missing() {
            return ranks.size() < expected;
        }
    }
}
