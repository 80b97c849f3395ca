package io.rdmamon.testing;

import io.rdmamon.jobs.SocketPorts;
import io.rdmamon.model.GpuSample;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.PortSample;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;

/**
 * A small simulated cluster for topology tests: training jobs whose ranks run ring all-reduce bursts each iteration
 * with compute gaps between them, sampled at 1 Hz per port the way a collector would (the average rate over the
 * interval), plus one host interface per node. Faults and phases are layered on: hangs, pauses with host traffic
 * (checkpoints), evaluation phases at a lower level, a slow or missing rank, silent collectors, and a hook to alter
 * any sample (link state, errors, rate).
 */
public final class TrainingTraffic {
    public static final long LINK_RATE = 25_000_000_000L;
    public static final double HOST_BASE = 2_000_000;

    /** One record to feed, in time order: a port sample, a host sample, a GPU sample or a job record. */
    public record Event(long ts, PortSample port, HostIfaceSample host, JobRecord job, GpuSample gpu) {
        public Event(long ts, PortSample port, HostIfaceSample host, JobRecord job) {
            this(ts, port, host, job, null);
        }
    }

    /**
     * What a GPU reads over a second, as NVML says it (the issue 44 table of real H100 readings): utilization and
     * memory utilization (%), power (W), SM clock (MHz), compute processes.
     */
    public record GpuReading(double utilization, double memory, double watts, double clockMHz, int processes,
                             Activity activity, String error) {
        public GpuReading(double utilization, double memory, double watts, double clockMHz, int processes) {
            this(utilization, memory, watts, clockMHz, processes, null, null);
        }

        public static final GpuReading TRAINING = new GpuReading(100, 3, 200, 1_980, 1);
        /** Inside a collective that cannot complete, or in a barrier: the NCCL kernel spins. */
        public static final GpuReading IN_COLLECTIVE = new GpuReading(100, 0, 125, 1_980, 1);
        public static final GpuReading EVALUATING = new GpuReading(95, 25, 400, 1_980, 1);
        /** The process is alive but runs nothing on the GPU: a checkpoint write, a data-loader stall, stopped. */
        public static final GpuReading IDLE = new GpuReading(0, 0, 120, 1_980, 1);
        /** The process exited: a crash, or the job's end. */
        public static final GpuReading NO_PROCESS = new GpuReading(0, 0, 73, 345, 0);
        /** The GPU fell off the bus: NVML's readings fail, the sample keeps it with null values. */
        public static final GpuReading LOST = new GpuReading(0, 0, 0, 0, 0, null, "GPU is lost");

        /** The same reading with its compute processes' activity (issue 49's fields). */
        public GpuReading with(Activity activity) {
            return new GpuReading(utilization, memory, watts, clockMHz, processes, activity, error);
        }
    }

    /**
     * What a GPU's compute processes did over a second (their trees): CPU in cores, bytes read and written through
     * system calls (null: unreadable), states seen. The issue 49 table of one training process measured on an H200.
     */
    public record Activity(double cpuCores, Double readBytesPerSec, Double writeBytesPerSec, String states) {
        public static final Activity TRAINING = new Activity(1.6, 100_000.0, 100_000.0, "R");
        public static final Activity IN_COLLECTIVE = new Activity(1.01, 0.0, 0.0, "R");
        public static final Activity EVALUATING = new Activity(1.0, 0.0, 0.0, "R");
        public static final Activity CHECKPOINT = new Activity(0.72, 0.0, 551e6, "RD");
        public static final Activity SLOW_LOADER = new Activity(0.06, 12.7e6, 0.0, "S");
        public static final Activity STOPPED = new Activity(0.01, 0.0, 0.0, "T");
        public static final Activity BLOCKED = new Activity(0.02, 0.0, 0.0, "S");
        public static final Activity BLOCKED_IN_IO = new Activity(0.0, 0.0, 0.0, "D");
        public static final Activity LOADER_WORKERS_IDLE = new Activity(0.03, 0.0, 0.0, "S");

        /** The same CPU and states without the byte counters (a collector that cannot read /proc/<pid>/io). */
        public Activity withoutBytes() {
            return new Activity(cpuCores, null, null, states);
        }
    }

    /** Samples of a job's GPUs, {@code node/gpu} → what it reads at a time; null: the GPU sends nothing then. */
    public interface GpuPhases {
        GpuReading at(String node, int gpu, long t);
    }

    private final List<Job> jobs = new ArrayList<>();
    private final List<Event> jobRecords = new ArrayList<>();
    private final Map<String, List<long[]>> silences = new LinkedHashMap<>();
    private final Map<String, List<double[]>> hostBursts = new LinkedHashMap<>();
    private final List<String> extraPorts = new ArrayList<>();
    private UnaryOperator<PortSample> tweak = s -> s;
    private final Map<Job, GpuPhases> gpus = new LinkedHashMap<>();
    private final Map<String, Long> samplingPhases = new LinkedHashMap<>();

    /** A training job on the given nodes, one rank per node and device. */
    /** {@code s} with its port down: state DOWN, no traffic, a link_downed count. */
    public static PortSample down(PortSample s) {
        return new PortSample(s.v(), s.node(), s.device(), s.port(), s.ts(), s.intervalMs(), s.source(), "DOWN",
                "Disabled", s.linkLayer(), s.rateBytesPerSec(), 0.0, 0.0, 0.0, 0.0, Map.of("link_downed", 1L),
                Map.of());
    }

    public Job job(String uid, List<String> nodes, List<String> devices) {
        Job job = new Job(uid, nodes, devices);
        jobs.add(job);
        return job;
    }

    /** Publishes the job's record at {@code at} with the given state. */
    public TrainingTraffic record(Job job, String state, long at) {
        jobRecords.add(new Event(at, null, null, job.record(state, at)));
        return this;
    }

    /** No samples at all from {@code node} in [from, to). */
    public TrainingTraffic silence(String node, long from, long to) {
        silences.computeIfAbsent(node, n -> new ArrayList<>()).add(new long[]{from, to});
        return this;
    }

    /** Host interface traffic of {@code node} at {@code bytesPerSec} (tx + rx) in [from, to): storage, checkpoints. */
    public TrainingTraffic hostBurst(String node, long from, long to, double bytesPerSec) {
        return hostBurst(node, from, to, bytesPerSec / 2, bytesPerSec / 2);
    }

    /** Host interface traffic of {@code node} in [from, to), per direction: a data loader reads, a checkpoint writes. */
    public TrainingTraffic hostBurst(String node, long from, long to, double txBytesPerSec, double rxBytesPerSec) {
        hostBursts.computeIfAbsent(node, n -> new ArrayList<>()).add(new double[]{from, to, txBytesPerSec,
                rxBytesPerSec});
        return this;
    }

    /**
     * The job's GPUs send samples, one GPU per rank (node and device), half a second after the ports' passes (the GPU
     * source keeps its own clock).
     */
    public TrainingTraffic gpus(Job job, GpuPhases phases) {
        gpus.put(job, phases);
        return this;
    }

    /** A port no job holds (still sampled, idle). */
    public TrainingTraffic sparePort(String node, String device) {
        extraPorts.add(node + "/" + device);
        return this;
    }

    /** {@code node}'s collector samples {@code offsetMs} after each whole second (others: on it). */
    public TrainingTraffic samplingPhase(String node, long offsetMs) {
        samplingPhases.put(node, offsetMs);
        return this;
    }

    /**
     * {@code events} in the order they arrive when each sample is delivered up to {@code maxLateMs} late (uniformly,
     * seeded), as from a busy broker; job records on time.
     */
    public static List<Event> lateUpTo(List<Event> events, long maxLateMs, long seed) {
        record Arrival(long at, Event event) {
        }
        SplittableRandom random = new SplittableRandom(seed);
        List<Arrival> arrivals = new ArrayList<>();
        for (Event e : events) {
            arrivals.add(new Arrival(e.job() != null ? e.ts() : e.ts() + random.nextLong(maxLateMs + 1), e));
        }
        arrivals.sort(Comparator.comparingLong(Arrival::at));
        return arrivals.stream().map(Arrival::event).toList();
    }

    public TrainingTraffic tweak(UnaryOperator<PortSample> tweak) {
        UnaryOperator<PortSample> before = this.tweak;
        this.tweak = s -> tweak.apply(before.apply(s));
        return this;
    }

    /** All records in [from, to), 1 Hz per port and host interface, sorted by time (job records first on ties). */
    public List<Event> run(long from, long to) {
        List<Event> out = new ArrayList<>(jobRecords.stream().filter(e -> e.ts() >= from && e.ts() < to).toList());
        Map<String, Job> portOwner = new LinkedHashMap<>();
        List<String> nodes = new ArrayList<>();
        for (Job job : jobs) {
            job.nodes.stream().filter(n -> !nodes.contains(n)).forEach(nodes::add);
            for (String node : job.socket ? List.<String>of() : job.nodes) {
                for (String device : job.devices) {
                    portOwner.putIfAbsent(node + "/" + device, null);
                }
            }
        }
        extraPorts.forEach(p -> portOwner.putIfAbsent(p, null));
        portOwner.keySet().stream().map(p -> p.substring(0, p.indexOf('/'))).filter(n -> !nodes.contains(n))
                .distinct().forEach(nodes::add);
        for (long t = from + 1_000; t < to; t += 1_000) {
            for (String port : portOwner.keySet()) {
                String node = port.substring(0, port.indexOf('/'));
                String device = port.substring(port.indexOf('/') + 1);
                long ts = t + samplingPhases.getOrDefault(node, 0L);
                if (ts < to && !silent(node, ts)) {
                    out.add(new Event(ts, tweak.apply(sample(node, device, ts)), null, null));
                }
            }
            for (String node : nodes) {
                long ts = t + samplingPhases.getOrDefault(node, 0L);
                if (ts < to && !silent(node, ts)) {
                    out.add(new Event(ts, null, host(node, ts), null));
                }
            }
            long gpuTs = t - 500;
            gpus.forEach((job, phases) -> {
                for (String node : job.nodes) {
                    for (int gpu = 0; gpu < job.devices.size(); gpu++) {
                        GpuReading r = silent(node, gpuTs) ? null : phases.at(node, gpu, gpuTs);
                        if (r != null) {
                            out.add(new Event(gpuTs, null, null, null, gpuSample(node, gpu, gpuTs, r)));
                        }
                    }
                }
            });
        }
        out.sort(Comparator.comparingLong(Event::ts).thenComparing(e -> e.job() == null));
        return out;
    }

    private static GpuSample gpuSample(String node, int gpu, long ts, GpuReading r) {
        String uuid = Job.gpuUuid(node, gpu);
        if (r.error() != null) {
            return new GpuSample(GpuSample.VERSION, node, gpu, uuid, ts, 1_000, null, null, null, null, null, null,
                    r.error(), null, null, null, null);
        }
        GpuSample g = new GpuSample(GpuSample.VERSION, node, gpu, uuid, ts, 1_000, r.utilization(), r.memory(),
                r.watts(), r.clockMHz(), r.processes());
        Activity a = r.activity();
        return a == null ? g : g.withProcessActivity(a.cpuCores(), a.readBytesPerSec(), a.writeBytesPerSec(),
                a.states());
    }

    private PortSample sample(String node, String device, long t) {
        double rate = 0;
        for (Job job : jobs) {
            rate += job.rate(node, device, t - 1_000, t);
        }
        return new PortSample(PortSample.VERSION, node, device, 1, t, 1_000, PortSample.SOURCE_SYSFS, "ACTIVE",
                "LinkUp", "Ethernet", LINK_RATE, rate, rate, rate / 4096, rate / 4096, Map.of(), Map.of());
    }

    private HostIfaceSample host(String node, long t) {
        double tx = HOST_BASE / 2;
        double rx = HOST_BASE / 2;
        for (double[] burst : hostBursts.getOrDefault(node, List.of())) {
            if (t > burst[0] && t <= burst[1]) {
                tx = burst[2];
                rx = burst[3];
            }
        }
        for (Job job : jobs) {
            if (job.socket) {
                tx += job.rate(node, "eth0", t - 1_000, t);
                rx += job.rate(node, "eth0", t - 1_000, t);
            }
        }
        return new HostIfaceSample(HostIfaceSample.VERSION, node, "eth0", t, 1_000, tx, rx, null, null, Map.of());
    }

    private boolean silent(String node, long t) {
        return silences.getOrDefault(node, List.of()).stream().anyMatch(w -> t >= w[0] && t < w[1]);
    }

    /** One training job: ring all-reduce bursts of {@code commMs} every {@code periodMs} at {@code burstRate}. */
    public static final class Job {
        public final String uid;
        public final List<String> nodes;
        public final List<String> devices;
        long periodMs = 1_000;
        long commMs = 400;
        double burstRate = 10e9;
        long trainFrom = Long.MIN_VALUE;
        long trainTo = Long.MAX_VALUE;
        boolean socket;
        boolean gpuIds;
        private final List<long[]> pauses = new ArrayList<>();
        private final List<double[]> phases = new ArrayList<>();
        private final Map<String, double[]> rankFactors = new LinkedHashMap<>();

        public Job(String uid, List<String> nodes, List<String> devices) {
            this.uid = uid;
            this.nodes = nodes;
            this.devices = devices;
        }

        public Job iteration(long periodMs, long commMs, double burstRate) {
            this.periodMs = periodMs;
            this.commMs = commMs;
            this.burstRate = burstRate;
            return this;
        }

        /**
         * A job meant to run over sockets (ACS P16EN): its ranks hold eth0, its record says
         * {@code rdmamon.io/transport=socket}, and its traffic rides on its nodes' host interface samples, on top of
         * their other traffic ({@link #HOST_BASE}, {@link TrainingTraffic#hostBurst}), not on RDMA ports.
         */
        public Job overSockets() {
            if (!devices.equals(List.of("eth0"))) {
                throw new IllegalArgumentException("a socket job holds eth0, not " + devices);
            }
            this.socket = true;
            return this;
        }

        /**
         * Each rank's record lists its GPU ({@code ranks[].gpus}): the GPU of the same index as its device, as the
         * samples of {@link TrainingTraffic#gpus} name it. Without, every rank holds every GPU of its node.
         */
        public Job withGpuIds() {
            this.gpuIds = true;
            return this;
        }

        /** The uuid of a GPU of the simulated cluster. */
        public static String gpuUuid(String node, int gpu) {
            return "GPU-" + node + "-" + gpu;
        }

        /** Traffic flows only in [from, to): before is setup, after is a hang or the end. */
        public Job trains(long from, long to) {
            this.trainFrom = from;
            this.trainTo = to;
            return this;
        }

        /** No RDMA traffic in [from, to): a checkpoint, a data-loader stall. */
        public Job pause(long from, long to) {
            pauses.add(new long[]{from, to});
            return this;
        }

        /** In [from, to) bursts run at {@code level} × the usual rate every {@code periodMs}: an evaluation phase. */
        public Job phase(long from, long to, double level, long periodMs, long commMs) {
            phases.add(new double[]{from, to, level, periodMs, commMs});
            return this;
        }

        /** In [from, to) the port {@code node/device} carries {@code factor} × its usual traffic (a slow or lost rank). */
        public Job portFactor(String node, String device, long from, long to, double factor) {
            rankFactors.put(node + "/" + device, new double[]{from, to, factor});
            return this;
        }

        public int rank(String node, String device) {
            return nodes.indexOf(node) * devices.size() + devices.indexOf(device);
        }

        public JobRecord record(String state, long at) {
            List<JobRecord.Rank> ranks = new ArrayList<>();
            for (String node : nodes) {
                for (String device : devices) {
                    ranks.add(new JobRecord.Rank(rank(node, device), uid + "-worker-" + rank(node, device), node,
                            List.of(device), null, null,
                            gpuIds ? List.of(gpuUuid(node, devices.indexOf(device))) : List.of()));
                }
            }
            return new JobRecord(JobRecord.VERSION, uid, "job-" + uid, "team-a", state, at, at, ranks.size(), ranks,
                    socket ? Map.of(SocketPorts.TRANSPORT_LABEL, SocketPorts.SOURCE) : Map.of());
        }

        /** Average rate (each direction) of this job on a port over (from, to]. */
        public double rate(String node, String device, long from, long to) {
            if (!nodes.contains(node) || !devices.contains(device)) {
                return 0;
            }
            double bytes = 0;
            for (long t = from; t < to; t += 10) {
                bytes += instantRate(t) * 0.010;
            }
            double[] factor = rankFactors.get(node + "/" + device);
            if (factor != null && to > factor[0] && to <= factor[1]) {
                bytes *= factor[2];
            }
            return bytes * 1000.0 / (to - from);
        }

        private double instantRate(long t) {
            if (t < trainFrom || t >= trainTo || pauses.stream().anyMatch(p -> t >= p[0] && t < p[1])) {
                return 0;
            }
            for (double[] phase : phases) {
                if (t >= phase[0] && t < phase[1]) {
                    long period = (long) phase[3];
                    return Math.floorMod(t, period) < phase[4] ? burstRate * phase[2] : 0;
                }
            }
            return Math.floorMod(t - trainFrom, periodMs) >= periodMs - commMs ? burstRate : 0;
        }
    }
}
