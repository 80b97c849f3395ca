package io.rdmamon.scenario;

import io.rdmamon.jobs.SocketPorts;
import io.rdmamon.model.GpuSample;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.PortSample;
import io.rdmamon.sim.NicDriver;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Turns a real {@link NcclTrace} into the records collectors and the job source would have published, and its ground
 * truth, so that {@code rdmamon evaluate} scores the detectors on real traffic. Each rank becomes a node
 * ({@code gpu-node-N}) with one 200 Gb/s RoCE NIC ({@code mlx5_0}) and {@code eth0}. {@link Form#RDMA}: the rank's
 * bytes on the RDMA port; {@link Form#TCP}: the same bytes on {@code eth0} and the RDMA port idle, as when NCCL fell
 * back to its socket transport; {@link Form#SWITCH}: on the RDMA port for the first half of the trace, on eth0 for the
 * second (NCCL fell back mid-job, e.g. after a restart on a node without its RDMA device); {@link Form#SOCKET}: a job
 * meant to run over sockets (ACS P16EN, published as {@code jobs watch} publishes it: its ranks' device {@code eth0},
 * label {@code rdmamon.io/transport=socket}), no RDMA device in its pods, its eth0 carrying the rank's bytes plus
 * 2-6 MB/s of other traffic (logs and metrics, steady; data loading, in bursts). Each node's collector samples once a
 * second at the sampling phase plus a stagger of its own, each read up to {@code jitterMs} late; its rates come from the trace's 10 Hz counters at those instants.
 *
 * <p>Ground truth: a hung rank is a STALLED_SYNC of its job (RDMA form), to be flagged within
 * {@link #HANG_DEADLINE_MS} or twice the longest pause the job had recovered from by itself plus
 * {@link #HANG_SLACK_MS}, whichever is longer. A crashed rank's pod goes Failed {@link #POD_EXIT_MS} after the crash,
 * as Kubernetes reports a container killed under restart policy Never, and the job with it: a STALLED_SYNC before
 * that is tolerated. A long pause longer than every earlier one of its job may be flagged (tolerated): traffic alone
 * cannot tell it from a hang. In the TCP form every
 * job is a TCP_FALLBACK from its training start (in the switch form from the switch), to be flagged within
 * {@link #FALLBACK_DEADLINE_MS}; a stall once on sockets may be flagged. A rate-limited link
 * may be flagged as degraded or its rank as a straggler. Anything else is a false positive.
 *
 * <p>A trace recorded with a GPU per rank ({@link NcclTrace#hasGpus()}) also gives each node's GPU samples, read at
 * the node's sampling instants: the mean of the GPU's readings since the node's previous sample, its processes as last
 * polled. The job's ranks then name their GPU. A hang during which every rank's GPU waits inside a collective (busy,
 * with no memory traffic) is then to be flagged within {@link #GPU_HANG_DEADLINE_MS}, whatever the job paused before;
 * a hang where some rank stopped outside its GPU keeps the network's deadline. A lost link (link-down) is a hang from
 * when the job would have talked again: the end of the evaluation, checkpoint or stall it was in.
 *
 * <p>A trace recorded with each rank's process activity ({@link NcclTrace#hasProcesses()}, ranks sharing one GPU:
 * {@link SharedGpus} gives each its own GPU) also fills the GPU samples' process fields, read as the collector reads
 * /proc ({@link TraceProcesses}); {@code processActivity} false leaves them out. With them, a hang in which some
 * ranks' GPUs wait in a collective and every other rank's processes make no progress ({@link StuckRanks}) is due
 * within {@link #GPU_HANG_DEADLINE_MS} of when that picture first holds; with GPU samples, a killed rank whose peers
 * wait ({@code survivorsWait}: its job stays Running) is due within it of when every other GPU waits. An elastic
 * restart ({@code restart}) is no incident, and a job's pods succeed only once their uploads after training end.
 */
public final class TraceImporter {
    /** Traces begin here in event time. */
    public static final long EPOCH = Cluster.EPOCH;
    public static final long HANG_DEADLINE_MS = 8_000;
    /** A hang after pauses may take twice the longest of them, and this for sampling and delivery. */
    public static final long HANG_SLACK_MS = 3_000;
    public static final long FALLBACK_DEADLINE_MS = 90_000;
    /** A hang that every rank's GPU shows (all waiting in a collective) is flagged within this. */
    public static final long GPU_HANG_DEADLINE_MS = 5_000;
    /** In the note of a hang whose rank died while every other rank's GPU waits (issue 48's rule, within 5 s). */
    public static final String DEAD_RANK_NOTE = "its GPU has no process while every other rank's waits in a collective";
    /** In the note of a hang with ranks stuck outside the collective (issue 49's rule, within 5 s). */
    public static final String STUCK_OUTSIDE_NOTE = StuckRanks.STUCK_NOTE;
    /** How long after a hang's start the GPUs' readings say whether every rank waits in a collective. */
    private static final long GPU_WAIT_LOOK_MS = 3_000;
    /** A GPU busy at least this much with at most {@link #WAIT_MEMORY_PERCENT} memory traffic waits in a kernel. */
    private static final double WAIT_UTILIZATION_PERCENT = 90;
    private static final double WAIT_MEMORY_PERCENT = 1;
    /** A job-wide quiet longer than this is a pause (evaluation, checkpoint), not a gap between iterations. */
    static final long PAUSE_MS = 1_000;
    /** A pause this long is the first one a monitor may take for a hang. */
    static final long LONG_PAUSE_MS = 4_000;
    /** Traffic between two pauses shorter than this may go unseen by a collector sampling once a second. */
    static final long BLIP_MS = 1_000;
    /** Below this a rank's 100 ms of traffic counts as quiet. */
    private static final double QUIET_BYTES_PER_SEC = 10e6;
    private static final long LINK_BYTES_PER_SEC = 200 * 125_000_000L;
    private static final double HOST_BASELINE_BYTES_PER_SEC = 2.0e6;
    /** Socket form: eth0's other traffic, tx+rx: logs and metrics all the time, data loading in bursts on top. */
    private static final double OTHER_STEADY_BYTES_PER_SEC = 2.0e6;
    private static final double OTHER_BURST_BYTES_PER_SEC = 4.0e6;
    /** A data-loading burst begins in a given second with this chance, and lasts 2 to 8 s. */
    private static final double OTHER_BURST_CHANCE = 0.1;
    private static final long RDMA_MTU = 4096;
    private static final long ETH_MTU = 1500;
    private static final String DEVICE = "mlx5_0";
    private static final String NAMESPACE = "nccl-traces";
    /** Pods go Running this long before the training process logs its first event. */
    private static final long POD_LEAD_MS = 2_000;
    /** A pod shows Succeeded, or Failed, this long after its process exited or was killed. */
    private static final long POD_EXIT_MS = 3_000;

    public enum Form {
        RDMA, TCP, SWITCH, SOCKET;

        public static Form of(String label) {
            for (Form form : values()) {
                if (form.label().equals(label)) {
                    return form;
                }
            }
            throw new IllegalArgumentException("--form takes rdma, tcp, switch or socket, got '" + label + "'");
        }

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private TraceImporter() {
    }

    public static String scenarioName(NcclTrace trace, Form form, long phaseMs) {
        return trace.meta().name() + "-" + form.label() + "-phase" + phaseMs;
    }

    /** The trace's records, with its GPU samples where it has them. */
    public static ScenarioRecorder.Recording importTrace(NcclTrace trace, Form form, long phaseMs, long jitterMs,
                                                         long seed) {
        return importTrace(trace, form, phaseMs, jitterMs, seed, trace.hasGpus());
    }

    /**
     * The trace's records; {@code gpuSamples} false leaves its GPU telemetry out (a cluster whose collectors read no
     * GPUs), with the network's deadlines in the ground truth.
     */
    public static ScenarioRecorder.Recording importTrace(NcclTrace trace, Form form, long phaseMs, long jitterMs,
                                                         long seed, boolean gpuSamples) {
        return importTrace(trace, form, phaseMs, jitterMs, seed, gpuSamples, gpuSamples && trace.hasProcesses());
    }

    /**
     * The trace's records; {@code processActivity} false leaves the GPU samples' process fields out (a collector that
     * cannot read the GPU processes' /proc entries), with the deadlines that hold without them in the ground truth.
     */
    public static ScenarioRecorder.Recording importTrace(NcclTrace trace, Form form, long phaseMs, long jitterMs,
                                                         long seed, boolean gpuSamples, boolean processActivity) {
        if (processActivity && !(gpuSamples && trace.hasProcesses())) {
            throw new IllegalArgumentException(trace.meta().name() + ": process activity needs GPU samples and the"
                    + " ranks' process readings (procs.csv)");
        }
        if (gpuSamples && !trace.hasGpus()) {
            throw new IllegalArgumentException(trace.meta().name() + " has no GPU telemetry (gpus.csv)");
        }
        if (phaseMs < 0 || phaseMs >= 60_000) {
            throw new IllegalArgumentException("the phase is 0 to 59999 ms, got " + phaseMs);
        }
        if (jitterMs < 0 || jitterMs >= 500) {
            throw new IllegalArgumentException("the sampling jitter is 0 to 499 ms, got " + jitterMs);
        }
        String name = scenarioName(trace, form, phaseMs);
        SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + phaseMs);
        // whole seconds move the trace against the detectors' event-time windows, the rest against the sampling
        long base = EPOCH + phaseMs - phaseMs % 1000;
        List<NcclTrace.RankKey> ranks = trace.meta().jobs().stream().flatMap(j -> trace.ranks(j.name()).stream())
                .toList();
        List<ScenarioRecorder.Arrival<PortSample>> ports = new ArrayList<>();
        List<ScenarioRecorder.Arrival<HostIfaceSample>> hosts = new ArrayList<>();
        List<ScenarioRecorder.Arrival<GpuSample>> gpus = new ArrayList<>();
        // a random of their own: the other records stay as they were for traces without GPUs
        SplittableRandom gpuDelays = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + phaseMs + 1);
        TraceProcesses activity = processActivity ? new TraceProcesses(trace) : null;
        for (int i = 0; i < ranks.size(); i++) {
            NcclTrace.RankKey rank = ranks.get(i);
            String node = node(i);
            long stagger = (i * 137L) % 1000;
            long prev = -1;
            long[] prevBytes = null;
            OtherTraffic other = new OtherTraffic();
            for (long nominal = phaseMs % 1000 + stagger; nominal < trace.meta().durationMs(); nominal += 1000) {
                long t = nominal + (jitterMs == 0 ? 0 : random.nextLong(jitterMs));
                if (t > trace.meta().durationMs()) {
                    break;
                }
                long[] bytes = trace.bytesAt(rank, t);
                Double tx = null;
                Double rx = null;
                long interval = 1000;
                if (prevBytes != null) {
                    interval = t - prev;
                    tx = (bytes[0] - prevBytes[0]) * 1000.0 / interval;
                    rx = (bytes[1] - prevBytes[1]) * 1000.0 / interval;
                }
                long ts = base + t;
                GpuSample gpu = gpuSamples ? gpuSample(trace.gpus().get(rank), node, prev < 0 ? t - 1000 : prev, t,
                        ts) : null;
                if (gpu != null && activity != null) {
                    TraceProcesses.Activity a = activity.over(rank, prev < 0 ? -1 : prev, t);
                    if (a != null) {
                        gpu = gpu.withProcessActivity(a.cpuCores(), a.readBytesPerSec(), a.writeBytesPerSec(),
                                a.states());
                    }
                }
                if (gpu != null) {
                    gpus.add(new ScenarioRecorder.Arrival<>(ts + ScenarioRecorder.delay(gpuDelays), gpu));
                }
                if (form == Form.SOCKET) {
                    hosts.add(new ScenarioRecorder.Arrival<>(ts + ScenarioRecorder.delay(random),
                            socketSample(node, ts, interval, tx, rx, other.next(random))));
                    prev = t;
                    prevBytes = bytes;
                    continue;
                }
                boolean rdma = form == Form.RDMA || form == Form.SWITCH && t < switchAt(trace);
                ports.add(new ScenarioRecorder.Arrival<>(ts + ScenarioRecorder.delay(random),
                        portSample(node, ts, interval, rdma ? tx : zeroIfKnown(tx), rdma ? rx : zeroIfKnown(rx))));
                hosts.add(new ScenarioRecorder.Arrival<>(ts + ScenarioRecorder.delay(random),
                        hostSample(node, ts, interval, rdma ? null : tx, rdma ? null : rx, prevBytes == null,
                                random)));
                prev = t;
                prevBytes = bytes;
            }
        }
        List<JobRecord> jobs = new ArrayList<>();
        List<Incident> incidents = new ArrayList<>();
        int first = 0;
        for (NcclTrace.Job job : trace.meta().jobs()) {
            List<String> nodes = new ArrayList<>();
            for (int r = 0; r < job.ranks(); r++) {
                nodes.add(node(first + r));
            }
            first += job.ranks();
            SimulatedJob simulated = job(trace, job, nodes, base, form == Form.SOCKET, gpuSamples);
            jobs.addAll(simulated.lifecycle());
            incidents.addAll(truth(trace, job, simulated, form, base, gpuSamples, processActivity));
        }
        jobs.sort(Comparator.comparingLong(JobRecord::updatedAt));
        String description = trace.meta().description() + " [real NCCL trace, " + form.label() + " form, sampling"
                + " phase " + phaseMs + " ms, jitter " + jitterMs + " ms" + (gpuSamples ? ", GPU samples" : "")
                + (processActivity ? " with process activity" : "") + "]";
        GroundTruth truth = new GroundTruth(GroundTruth.VERSION, name, description, seed, base,
                base + trace.meta().durationMs(), incidents);
        return new ScenarioRecorder.Recording(ScenarioRecorder.inArrivalOrder(ports, PortSample::ts),
                ScenarioRecorder.inArrivalOrder(hosts, HostIfaceSample::ts), jobs, truth,
                ScenarioRecorder.inArrivalOrder(gpus, GpuSample::ts));
    }

    /**
     * The node's GPU over (fromMs, toMs]: the mean of its readings, as the collector averages nvidia-smi's stream over
     * its interval; processes as last polled. Null when the GPU had no reading in the interval.
     */
    private static GpuSample gpuSample(List<NcclTrace.GpuRow> rows, String node, long fromMs, long toMs, long ts) {
        if (rows == null) {
            return null;
        }
        List<NcclTrace.GpuRow> in = rows.stream().filter(r -> r.tMs() > fromMs && r.tMs() <= toMs).toList();
        if (in.isEmpty()) {
            return null;
        }
        NcclTrace.GpuRow last = in.get(in.size() - 1);
        return new GpuSample(GpuSample.VERSION, node, 0, last.uuid(), ts, toMs - fromMs,
                mean(in, NcclTrace.GpuRow::utilizationPercent), mean(in, NcclTrace.GpuRow::memoryUtilizationPercent),
                mean(in, NcclTrace.GpuRow::powerWatts), mean(in, NcclTrace.GpuRow::smClockMHz), last.processes());
    }

    private static Double mean(List<NcclTrace.GpuRow> rows, java.util.function.Function<NcclTrace.GpuRow, Double> f) {
        double sum = 0;
        int n = 0;
        for (NcclTrace.GpuRow row : rows) {
            Double v = f.apply(row);
            if (v != null) {
                sum += v;
                n++;
            }
        }
        return n == 0 ? null : Math.round(sum / n * 100) / 100.0;
    }

    /** Where the {@link Form#SWITCH} form moves the traffic from the RDMA port to eth0: half way through the trace. */
    static long switchAt(NcclTrace trace) {
        return trace.meta().durationMs() / 2;
    }

    private static String node(int index) {
        return "gpu-node-" + (index + 1);
    }

    private static Double zeroIfKnown(Double rate) {
        return rate == null ? null : 0.0;
    }

    /**
     * The job's records: Running shortly before its processes start, Succeeded after all exited cleanly, Failed after
     * a rank was killed (its pod fails, and the job with it).
     */
    private static SimulatedJob job(NcclTrace trace, NcclTrace.Job job, List<String> nodes, long base,
                                    boolean socket, boolean gpuSamples) {
        long started = trace.events(job.name(), "init_start").stream().mapToLong(NcclTrace.Event::tMs).min()
                .orElseThrow(() -> new IllegalArgumentException(trace.meta().name() + ": job " + job.name()
                        + " has no init_start event"));
        Long ended = podsEnd(trace, job);
        Long succeeded = ended == null ? null : base + ended + POD_EXIT_MS;
        long running = Math.max(0, started - POD_LEAD_MS);
        List<JobRecord.Rank> ranks = SimulatedJob.ranks(job.name(), nodes,
                List.of(socket ? ScenarioRecorder.HOST_IFACE : DEVICE));
        if (gpuSamples) {
            ranks = ranks.stream().map(r -> new JobRecord.Rank(r.rank(), r.pod(), r.node(), r.devices(),
                    r.instanceType(), r.virtualNode(), List.of(job.gpuUuids().get(r.rank())))).toList();
        }
        SimulatedJob simulated = SimulatedJob.create(trace.meta().name(), job.name(), NAMESPACE, ranks,
                base + running, succeeded, null);
        if (socket) {
            simulated = simulated.withLabel(SocketPorts.TRANSPORT_LABEL, SocketPorts.SOURCE);
        }
        NcclTrace.Injected crash = stop(trace, job.name());
        if (succeeded != null || crash == null || !crash.kind().equals(NcclTrace.Injected.CRASH)
                || crash.survivorsWait()) {
            return simulated;
        }
        JobRecord r = simulated.running();
        List<JobRecord> lifecycle = new ArrayList<>(simulated.lifecycle());
        lifecycle.add(new JobRecord(r.v(), r.uid(), r.job(), r.namespace(), JobRecord.FAILED,
                base + crash.atMs() + POD_EXIT_MS, r.startedAt(), r.worldSize(), r.ranks(), r.labels()));
        return new SimulatedJob(lifecycle, null);
    }

    /**
     * When the job's pods all ended by themselves: every rank's training exited and, where a pod went on uploading
     * ({@code torchrun ... && upload}), its upload ended; null while one still runs.
     */
    static Long podsEnd(NcclTrace trace, NcclTrace.Job job) {
        List<NcclTrace.Event> exits = trace.events(job.name(), "exit");
        if (exits.stream().map(NcclTrace.Event::rank).distinct().count() != job.ranks()) {
            return null;
        }
        long end = exits.stream().mapToLong(NcclTrace.Event::tMs).max().orElseThrow();
        List<NcclTrace.Event> uploads = trace.events(job.name(), "upload_start");
        List<NcclTrace.Event> uploaded = trace.events(job.name(), "upload_end");
        if (uploaded.size() < uploads.size()) {
            return null;
        }
        return Math.max(end, uploaded.stream().mapToLong(NcclTrace.Event::tMs).max().orElse(end));
    }

    /** When every rank first finished its init (an elastic restart inits again later), null without. */
    static Long trainStart(NcclTrace trace, String job) {
        Map<Integer, Long> first = new java.util.HashMap<>();
        for (NcclTrace.Event e : trace.events(job, "init_done")) {
            first.merge(e.rank(), e.tMs(), Math::min);
        }
        return first.values().stream().max(Long::compare).orElse(null);
    }

    /** The job's first hang, lost link or crash, null without. */
    private static NcclTrace.Injected stop(NcclTrace trace, String job) {
        return trace.meta().incidents().stream()
                .filter(i -> i.job().equals(job))
                .filter(i -> i.stalls() || i.kind().equals(NcclTrace.Injected.CRASH))
                .findFirst().orElse(null);
    }

    /**
     * When a stall starts to hold the job: at once for a stopped rank; for a lost link, once every rank has left the
     * evaluation, checkpoint or data-loader stall it was in (until then nobody waits on the link).
     */
    static long stallStart(NcclTrace trace, NcclTrace.Injected injected) {
        if (!injected.kind().equals(NcclTrace.Injected.LINK_DOWN)) {
            return injected.atMs();
        }
        long start = injected.atMs();
        for (String phase : List.of("eval", "ckpt", "loader_stall")) {
            for (NcclTrace.RankKey rank : trace.ranks(injected.job())) {
                long lastStart = lastBefore(trace, rank, phase + "_start", injected.atMs());
                long lastEnd = lastBefore(trace, rank, phase + "_end", injected.atMs());
                if (lastStart > lastEnd) {
                    long end = trace.events(injected.job(), phase + "_end").stream()
                            .filter(e -> e.rank() == rank.rank() && e.tMs() >= injected.atMs())
                            .mapToLong(NcclTrace.Event::tMs).min().orElse(injected.atMs());
                    start = Math.max(start, end);
                }
            }
        }
        return start;
    }

    private static long lastBefore(NcclTrace trace, NcclTrace.RankKey rank, String event, long tMs) {
        return trace.events(rank.job(), event).stream().filter(e -> e.rank() == rank.rank() && e.tMs() < tMs)
                .mapToLong(NcclTrace.Event::tMs).max().orElse(-1);
    }

    /** The first instant within 30 s of {@code fromMs} from which every other rank's GPU waits, null if none. */
    static Long othersWaitFrom(NcclTrace trace, String job, int rank, long fromMs) {
        for (long t = fromMs; t <= fromMs + 30_000 && t + GPU_WAIT_LOOK_MS <= trace.meta().durationMs(); t += 100) {
            if (othersWait(trace, job, rank, t)) {
                return t;
            }
        }
        return null;
    }

    /** Whether every GPU of the job but {@code rank}'s waits inside a collective over the stall's first seconds. */
    static boolean othersWait(NcclTrace trace, String job, int rank, long fromMs) {
        for (NcclTrace.RankKey other : trace.ranks(job)) {
            if (other.rank() != rank && !gpuWaits(trace, other, fromMs)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the rank's GPU waits inside a collective over {@link #GPU_WAIT_LOOK_MS} from {@code fromMs}. */
    static boolean gpuWaits(NcclTrace trace, NcclTrace.RankKey rank, long fromMs) {
        List<NcclTrace.GpuRow> rows = trace.gpus().getOrDefault(rank, List.of()).stream()
                .filter(r -> r.tMs() >= fromMs && r.tMs() < fromMs + GPU_WAIT_LOOK_MS).toList();
        Double util = mean(rows, NcclTrace.GpuRow::utilizationPercent);
        Double memory = mean(rows, NcclTrace.GpuRow::memoryUtilizationPercent);
        return util != null && memory != null && util >= WAIT_UTILIZATION_PERCENT && memory <= WAIT_MEMORY_PERCENT;
    }

    /**
     * Whether every GPU of the job waits inside a collective over the first {@link #GPU_WAIT_LOOK_MS} of a stall:
     * busy at least {@link #WAIT_UTILIZATION_PERCENT} with at most {@link #WAIT_MEMORY_PERCENT} memory traffic, on
     * the mean of the recorded readings. Read from what the GPUs did, not from how the stall was caused.
     */
    static boolean everyGpuWaits(NcclTrace trace, String job, long fromMs) {
        for (NcclTrace.RankKey rank : trace.ranks(job)) {
            if (!gpuWaits(trace, rank, fromMs)) {
                return false;
            }
        }
        return true;
    }

    private static List<Incident> truth(NcclTrace trace, NcclTrace.Job job, SimulatedJob simulated, Form form,
                                        long base, boolean gpuSamples, boolean processActivity) {
        List<Incident> out = new ArrayList<>();
        Long firstInit = trainStart(trace, job.name());
        if (firstInit == null) {
            throw new IllegalArgumentException(trace.meta().name() + ": job " + job.name() + " has no init_done event");
        }
        long trainStart = firstInit;
        List<long[]> pauses = pauses(trace, job.name(), trainStart);
        NcclTrace.Injected stop = stop(trace, job.name());
        // from when the job's collectives fell back to sockets; in the switch form, a job that stopped before never
        // does; a job meant to run over sockets (socket form) never falls back
        long onTcp = form == Form.TCP ? trainStart : form == Form.SWITCH ? switchAt(trace) : Long.MAX_VALUE;
        // the job stops training at its hang or crash, or when its ranks exit by themselves
        List<NcclTrace.Event> exits = trace.events(job.name(), "exit");
        Long stopsAt = stop != null ? Long.valueOf(stop.atMs()) : exits.stream().map(NcclTrace.Event::rank)
                .distinct().count() == job.ranks() ? exits.stream().mapToLong(NcclTrace.Event::tMs).max().orElseThrow()
                : null;
        if (onTcp != Long.MAX_VALUE && (stopsAt == null || stopsAt > onTcp)) {
            Long end = stopsAt == null ? null : base + stopsAt;
            // a job that stops sooner than the deadline after it went on sockets gives too little to judge by
            // as is one whose elastic restart (a quiet of tens of seconds) falls within that deadline
            boolean restarted = trace.meta().incidents().stream().anyMatch(i -> i.job().equals(job.name())
                    && i.kind().equals(NcclTrace.Injected.RESTART) && i.atMs() >= onTcp
                    && i.atMs() < onTcp + FALLBACK_DEADLINE_MS);
            boolean judgeable = (stopsAt == null || stopsAt - onTcp >= FALLBACK_DEADLINE_MS) && !restarted;
            out.add(incident(judgeable ? Incident.ALERT : Incident.TOLERATE, "TCP_FALLBACK", simulated, null,
                    base + onTcp, end, judgeable ? FALLBACK_DEADLINE_MS : null, "NCCL's collectives run over its"
                            + " socket transport on eth0 from " + (onTcp / 1000) + " s; the RDMA port idles from then"));
        }
        long longestBefore = 0;
        for (long[] p : joinedAcrossBlips(pauses)) {
            long length = p[1] - p[0];
            if (length >= LONG_PAUSE_MS && length > longestBefore) {
                out.add(incident(Incident.TOLERATE, "STALLED_SYNC", simulated, null, base + p[0], base + p[1], null,
                        "a pause of " + length / 1000.0 + " s, longer than every earlier one of the job ("
                                + longestBefore / 1000.0 + " s): traffic alone cannot tell it from a hang"));
            }
            longestBefore = Math.max(longestBefore, length);
        }
        for (NcclTrace.Injected injected : trace.meta().incidents()) {
            if (!injected.job().equals(job.name()) || injected.kind().equals(NcclTrace.Injected.RESTART)) {
                continue; // an elastic restart in the same pods is no fault: any alert on it is a false one
            }
            String node = simulated.running().ranks().get(injected.rank()).node();
            long startMs = injected.stalls() ? stallStart(trace, injected) : injected.atMs();
            long at = base + startMs;
            if (injected.kind().equals(NcclTrace.Injected.SLOW_LINK)) {
                Long end = injected.endMs() == null ? null : base + injected.endMs();
                String note = "rank " + injected.rank() + "'s link limited to " + injected.rate() + " (tc)";
                out.add(incident(Incident.TOLERATE, "STRAGGLER", simulated, node, at, end, null, note));
                out.add(new Incident("LINK_DEGRADED", Incident.TOLERATE, simulated.uid(), job.name(), node,
                        form == Form.SOCKET ? ScenarioRecorder.HOST_IFACE : DEVICE, 1, at, end, note, null));
                continue;
            }
            long longest = pauses.stream().filter(p -> p[1] <= startMs).mapToLong(p -> p[1] - p[0]).max()
                    .orElse(0);
            boolean crash = injected.kind().equals(NcclTrace.Injected.CRASH) && !injected.survivorsWait();
            boolean gpusWait = gpuSamples && !crash && everyGpuWaits(trace, job.name(), startMs);
            // a dead rank's GPU empty while every other waits (issue 48); a rank stuck outside the collective, its
            // processes without progress, while the others wait (issue 49, needs the process activity)
            Long deadAt = gpuSamples && injected.kind().equals(NcclTrace.Injected.CRASH) && injected.survivorsWait()
                    ? othersWaitFrom(trace, job.name(), injected.rank(), startMs) : null;
            boolean deadRank = deadAt != null;
            Long stuckAt = processActivity && !gpusWait && !deadRank
                    ? StuckRanks.onset(trace, job.name(), startMs) : null;
            boolean stuckOutside = stuckAt != null;
            boolean fast = gpusWait || deadRank || stuckOutside;
            if (stuckOutside || deadRank) {
                // the peers may first finish an evaluation pass or an iteration: the picture holds from here
                at = base + (stuckOutside ? stuckAt : deadAt);
            }
            long deadline = fast ? GPU_HANG_DEADLINE_MS : Math.max(HANG_DEADLINE_MS, 2 * longest + HANG_SLACK_MS);
            String what = injected.note() != null ? injected.note() : "rank " + injected.rank() + " "
                    + (crash ? "crashed (SIGKILL): its pod and the job go Failed " + POD_EXIT_MS / 1000 + " s later"
                    : injected.kind().equals(NcclTrace.Injected.LINK_DOWN) ? "lost its link at "
                    + injected.atMs() / 1000.0 + " s (NIC down)" : "hung (SIGSTOP)");
            String note = what + "; longest pause recovered from before: " + longest / 1000.0 + " s"
                    + (gpusWait ? "; every rank's GPU waits in a collective" : "")
                    + (deadRank ? "; " + DEAD_RANK_NOTE : "")
                    + (stuckOutside ? "; " + StuckRanks.STUCK_NOTE : "");
            // once on sockets the job's quiet is not seen on RDMA ports: a stall there may be flagged, need not be;
            // a crash is the job's Failed record, a stall until then may be flagged
            boolean expected = injected.atMs() < onTcp && !crash;
            out.add(incident(expected ? Incident.ALERT : Incident.TOLERATE, "STALLED_SYNC", simulated, null, at, null,
                    expected ? deadline : null, note));
            out.add(incident(Incident.TOLERATE, "STRAGGLER", simulated, null, at, null, null,
                    "the ranks' traffic as the job stops"));
        }
        return out;
    }

    private static Incident incident(String expect, String type, SimulatedJob job, String node, long onset, Long end,
                                     Long maxLatencyMs, String note) {
        return new Incident(type, expect, job.uid(), job.name(), node, null, null, onset, end, note, maxLatencyMs);
    }

    /**
     * Pauses with less than a sampling interval ({@link #BLIP_MS}) of traffic between them, joined: a collector that
     * samples once a second may see such a blip (a checkpoint's barrier, then an evaluation) as no traffic at all, and
     * the two pauses as one longer than either. Only for what may be flagged; a hang's deadline keeps the pauses as
     * recorded.
     */
    static List<long[]> joinedAcrossBlips(List<long[]> pauses) {
        List<long[]> out = new ArrayList<>();
        for (long[] p : pauses) {
            long[] last = out.isEmpty() ? null : out.get(out.size() - 1);
            if (last != null && p[0] - last[1] < BLIP_MS) {
                out.set(out.size() - 1, new long[] {last[0], p[1]});
            } else {
                out.add(p);
            }
        }
        return out;
    }

    /**
     * The job-wide quiet periods longer than {@link #PAUSE_MS} after its training started, [start, end) in ms from
     * the trace's start, read at the trace's own resolution: every rank sent less than {@link #QUIET_BYTES_PER_SEC}.
     * A quiet that lasts until the trace's end is not a pause (nothing recovered).
     */
    static List<long[]> pauses(NcclTrace trace, String job, long from) {
        List<NcclTrace.RankKey> ranks = trace.ranks(job);
        List<NcclTrace.CounterRow> reference = trace.counters().get(ranks.get(0));
        List<long[]> out = new ArrayList<>();
        Long quietSince = null;
        for (int i = 1; i < reference.size(); i++) {
            long t0 = reference.get(i - 1).tMs();
            long t1 = reference.get(i).tMs();
            if (t1 <= from) {
                continue;
            }
            boolean quiet = true;
            for (NcclTrace.RankKey rank : ranks) {
                long sent = trace.bytesAt(rank, t1)[0] - trace.bytesAt(rank, t0)[0];
                if (sent * 1000.0 / (t1 - t0) >= QUIET_BYTES_PER_SEC) {
                    quiet = false;
                    break;
                }
            }
            if (quiet && quietSince == null) {
                quietSince = t0;
            } else if (!quiet && quietSince != null) {
                if (t0 - quietSince > PAUSE_MS) {
                    out.add(new long[] {quietSince, t0});
                }
                quietSince = null;
            }
        }
        return out;
    }

    private static PortSample portSample(String node, long ts, long intervalMs, Double tx, Double rx) {
        NicDriver driver = NicDriver.ofDevice(DEVICE);
        return new PortSample(PortSample.VERSION, node, DEVICE, 1, ts, intervalMs, PortSample.SOURCE_SYSFS, "ACTIVE",
                "LinkUp", driver.linkLayer(), LINK_BYTES_PER_SEC, tx, rx, packets(tx, RDMA_MTU),
                packets(rx, RDMA_MTU), Map.of(), Map.<String, Long>of());
    }

    private static HostIfaceSample hostSample(String node, long ts, long intervalMs, Double tx, Double rx,
                                              boolean first, SplittableRandom random) {
        if (first) {
            return new HostIfaceSample(HostIfaceSample.VERSION, node, ScenarioRecorder.HOST_IFACE, ts, intervalMs,
                    null, null, null, null, Map.of());
        }
        double txRate = HOST_BASELINE_BYTES_PER_SEC * (0.5 + random.nextDouble()) + (tx == null ? 0 : tx);
        double rxRate = HOST_BASELINE_BYTES_PER_SEC * (0.5 + random.nextDouble()) + (rx == null ? 0 : rx);
        return new HostIfaceSample(HostIfaceSample.VERSION, node, ScenarioRecorder.HOST_IFACE, ts, intervalMs, txRate,
                rxRate, packets(txRate, ETH_MTU), packets(rxRate, ETH_MTU), Map.of());
    }

    /** The socket form's eth0: the rank's bytes (null in the first sample: no rate yet) and the other traffic. */
    private static HostIfaceSample socketSample(String node, long ts, long intervalMs, Double tx, Double rx,
                                                double[] other) {
        Double txRate = tx == null ? null : tx + other[0];
        Double rxRate = rx == null ? null : rx + other[1];
        return new HostIfaceSample(HostIfaceSample.VERSION, node, ScenarioRecorder.HOST_IFACE, ts, intervalMs, txRate,
                rxRate, packets(txRate, ETH_MTU), packets(rxRate, ETH_MTU), Map.of());
    }

    /**
     * A node's other traffic on eth0, tx and rx per second: logs and metrics out and in all the time
     * ({@link #OTHER_STEADY_BYTES_PER_SEC} ± 20 %), and data loading (reads: rx) in bursts of 2 to 8 s at half to
     * 0.9 of {@link #OTHER_BURST_BYTES_PER_SEC}, whatever NCCL does: 2 to 6 MB/s in all.
     */
    private static final class OtherTraffic {
        private long burstLeft;
        private double burst;

        double[] next(SplittableRandom random) {
            if (burstLeft == 0 && random.nextDouble() < OTHER_BURST_CHANCE) {
                burstLeft = 2 + random.nextLong(7);
                burst = OTHER_BURST_BYTES_PER_SEC * (0.5 + 0.4 * random.nextDouble());
            }
            double rx = burstLeft > 0 ? burst : 0;
            burstLeft = Math.max(0, burstLeft - 1);
            double steady = OTHER_STEADY_BYTES_PER_SEC * (0.8 + 0.4 * random.nextDouble()) / 2;
            return new double[] {steady, steady + rx};
        }
    }

    private static Double packets(Double bytesPerSec, long mtu) {
        return bytesPerSec == null ? null : Math.ceil(bytesPerSec / mtu);
    }
}
