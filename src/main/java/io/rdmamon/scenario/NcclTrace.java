package io.rdmamon.scenario;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonNode;
import io.rdmamon.model.Json;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * A trace recorded by {@code testbed/nccl/record.sh} on a GPU machine: real PyTorch DDP jobs over NCCL, each rank
 * behind a NIC of its own. {@code trace.json} holds the jobs and the incidents injected (times in ms from the trace's
 * start); {@code counters.csv} each rank's cumulative NIC counters at about 10 Hz; {@code events.jsonl} the phases
 * each rank went through (epoch ms); where the recorder gave each rank a GPU of its own, {@code gpus.csv} each GPU's
 * telemetry (nvidia-smi's streaming query, about 10 Hz) and its compute processes. The data files may be gzipped
 * ({@code .gz}).
 */
public record NcclTrace(Meta meta, Map<RankKey, List<CounterRow>> counters, List<Event> events,
                        Map<RankKey, List<GpuRow>> gpus, Map<RankKey, List<ProcRow>> processes,
                        List<NvmlProcRow> nvmlProcesses, List<NvmlUtilRow> nvmlUtilization) {

    public static final String META = "trace.json";
    public static final String COUNTERS = "counters.csv";
    public static final String EVENTS = "events.jsonl";
    public static final String GPUS = "gpus.csv";
    /** Each rank's process tree at about 10 Hz (record.py's process activity). */
    public static final String PROCS = "procs.csv";
    /** NVML's compute processes per poll, and its per-process utilization samples (shared-GPU recordings). */
    public static final String GPU_PROCS = "gpu_procs.csv";
    public static final String GPU_PROC_UTIL = "gpu_proc_util.csv";

    /**
     * {@code sharedGpus}: the ranks shared the machine's GPUs (the gpu readings are the whole GPU's; each rank's own
     * comes from NVML's per-process readings); {@code clockTicksPerSec} the unit of procs.csv's CPU times.
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Meta(int v, String name, String description, long startEpochMs, long durationMs, double sampleHz,
                       List<Job> jobs, List<Injected> incidents, Boolean sharedGpus, Integer clockTicksPerSec) {
        public Meta {
            incidents = incidents == null ? List.of() : List.copyOf(incidents);
            sharedGpus = Boolean.TRUE.equals(sharedGpus);
            clockTicksPerSec = clockTicksPerSec == null ? 100 : clockTicksPerSec;
        }

        public Meta(int v, String name, String description, long startEpochMs, long durationMs, double sampleHz,
                    List<Job> jobs, List<Injected> incidents) {
            this(v, name, description, startEpochMs, durationMs, sampleHz, jobs, incidents, false, 100);
        }

        /** The job's argument after {@code flag}, null without. */
        public static String arg(Job job, String flag) {
            int i = job.args().indexOf(flag);
            return i < 0 || i + 1 >= job.args().size() ? null : job.args().get(i + 1);
        }
    }

    /** A job of the trace; {@code gpus} the GPU index of each rank and {@code gpuUuids} their uuids, where recorded. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Job(String name, int ranks, List<String> args, List<Integer> gpus, List<String> gpuUuids) {
        public Job {
            gpus = gpus == null ? List.of() : gpus;
            gpuUuids = gpuUuids == null ? List.of() : gpuUuids;
        }
    }

    /**
     * An incident the recorder injected: hang (SIGSTOP), crash (SIGKILL), slow-link (tc) or link-down (the rank's
     * NIC set down: every rank ends up waiting in a collective), ms from the start; or one found in the recording
     * afterwards, with a {@code note} that says how it was found.
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Injected(String kind, String job, int rank, long atMs, Long endMs, String rate, String note,
                           Boolean survivorsWait) {
        public static final String HANG = "hang";
        public static final String CRASH = "crash";
        public static final String SLOW_LINK = "slow-link";
        public static final String LINK_DOWN = "link-down";
        /** The rank blocked on a read that never returns (a hung mount), outside any collective. */
        public static final String BLOCK = "block";
        /** The rank's worker killed under torchrun --max-restarts: the job restarts in the same pods, no fault. */
        public static final String RESTART = "restart";

        public Injected {
            survivorsWait = Boolean.TRUE.equals(survivorsWait);
        }

        public Injected(String kind, String job, int rank, long atMs, Long endMs, String rate, String note) {
            this(kind, job, rank, atMs, endMs, rate, note, false);
        }

        /**
         * Whether the job stops making progress here: a hang, a blocked rank or a lost link; a crash whose survivors
         * wait (ranks without torchrun, the killed pod restarted by its restart policy) too. Other crashes fail the
         * job instead.
         */
        public boolean stalls() {
            return kind.equals(HANG) || kind.equals(LINK_DOWN) || kind.equals(BLOCK)
                    || kind.equals(CRASH) && survivorsWait;
        }
    }

    /**
     * One process of a rank's tree at {@code tMs}: CPU time in clock ticks (utime+stime of its threads and
     * cutime+cstime of its waited-for children), state letter, rchar/wchar of /proc/pid/io (null where unreadable).
     */
    public record ProcRow(long tMs, int pid, int ppid, String state, long cpuTicks, Long rchar, Long wchar) {
    }

    /** A process NVML listed on GPU {@code gpu} at the poll of {@code tMs}. */
    public record NvmlProcRow(long tMs, int gpu, int pid) {
    }

    /** One of NVML's per-process utilization samples, first seen at the poll of {@code tMs}; its own time in us. */
    public record NvmlUtilRow(long tMs, int gpu, int pid, long sampleTsUs, int smUtil, int memUtil) {
    }

    public record RankKey(String job, int rank) {
    }

    /** Cumulative counters of a rank's NIC at {@code tMs} from the trace's start; tx is what the rank sent. */
    public record CounterRow(long tMs, long txBytes, long rxBytes, long txPackets, long rxPackets) {
    }

    /**
     * One reading of a rank's GPU, {@code tMs} from the trace's start: NVML utilization and memory utilization (%),
     * power (W), SM clock (MHz), each null where the driver had none, and its compute processes (null before the
     * first poll).
     */
    public record GpuRow(long tMs, String uuid, Double utilizationPercent, Double memoryUtilizationPercent,
                         Double powerWatts, Double smClockMHz, Integer processes) {
    }

    /** A phase change of one rank ({@code init_start}, {@code init_done}, {@code eval_start}, ...), ms from start. */
    public record Event(long tMs, String job, int rank, String event) {
    }

    /** Whether {@code dir} holds a trace. */
    public static boolean isTrace(Path dir) {
        return Files.isRegularFile(dir.resolve(META));
    }

    public static NcclTrace read(Path dir) throws IOException {
        Meta meta = Json.MAPPER.readValue(dir.resolve(META).toFile(), Meta.class);
        if (meta.v() != 1) {
            throw new IOException(dir.resolve(META) + ": trace format v" + meta.v() + " is not supported (v1)");
        }
        Map<RankKey, List<CounterRow>> counters = new LinkedHashMap<>();
        try (BufferedReader in = open(dir, COUNTERS)) {
            String header = in.readLine();
            if (header == null || !header.startsWith("t_ms,job,rank,tx_bytes,rx_bytes")) {
                throw new IOException(dir.resolve(COUNTERS) + ": unexpected header " + header);
            }
            int lineNo = 1;
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lineNo++;
                String[] f = line.split(",");
                if (f.length < 7) {
                    throw new IOException(dir.resolve(COUNTERS) + ":" + lineNo + ": expected 7 fields: " + line);
                }
                List<CounterRow> rows = counters.computeIfAbsent(new RankKey(f[1], Integer.parseInt(f[2])),
                        k -> new ArrayList<>());
                CounterRow row = new CounterRow(Long.parseLong(f[0]), Long.parseLong(f[3]), Long.parseLong(f[4]),
                        Long.parseLong(f[5]), Long.parseLong(f[6]));
                // a row of the same instant (the sampler catching up) adds nothing
                if (rows.isEmpty() || rows.get(rows.size() - 1).tMs() < row.tMs()) {
                    rows.add(row);
                }
            }
        }
        List<Event> events = new ArrayList<>();
        try (BufferedReader in = open(dir, EVENTS)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode e = Json.MAPPER.readTree(line);
                events.add(new Event(e.get("t").asLong() - meta.startEpochMs(), e.get("job").asText(),
                        e.get("rank").asInt(), e.get("event").asText()));
            }
        }
        NcclTrace trace = new NcclTrace(meta, counters, events, readGpus(dir, meta), readProcs(dir), readNvml(dir),
                readNvmlUtil(dir));
        return meta.sharedGpus() ? SharedGpus.virtualGpus(trace) : trace;
    }

    /** Whether the trace has GPU telemetry beside its counters. */
    public boolean hasGpus() {
        return !gpus.isEmpty();
    }

    /** Whether the trace has each rank's process activity (procs.csv). */
    public boolean hasProcesses() {
        return !processes.isEmpty();
    }

    private static boolean has(Path dir, String name) {
        return Files.isRegularFile(dir.resolve(name)) || Files.isRegularFile(dir.resolve(name + ".gz"));
    }

    private static Map<RankKey, List<ProcRow>> readProcs(Path dir) throws IOException {
        if (!has(dir, PROCS)) {
            return Map.of();
        }
        Map<RankKey, List<ProcRow>> out = new LinkedHashMap<>();
        try (BufferedReader in = open(dir, PROCS)) {
            String header = in.readLine();
            if (header == null || !header.startsWith("t_ms,job,rank,pid,ppid,comm,state,utime,stime,cutime,cstime")) {
                throw new IOException(dir.resolve(PROCS) + ": unexpected header " + header);
            }
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] f = line.split(",", -1);
                out.computeIfAbsent(new RankKey(f[1], Integer.parseInt(f[2])), k -> new ArrayList<>())
                        .add(new ProcRow(Long.parseLong(f[0]), Integer.parseInt(f[3]), Integer.parseInt(f[4]), f[6],
                                Long.parseLong(f[7]) + Long.parseLong(f[8]) + Long.parseLong(f[9])
                                        + Long.parseLong(f[10]),
                                f[12].isEmpty() ? null : Long.valueOf(f[12]),
                                f[13].isEmpty() ? null : Long.valueOf(f[13])));
            }
        }
        return out;
    }

    private static List<NvmlProcRow> readNvml(Path dir) throws IOException {
        List<NvmlProcRow> out = new ArrayList<>();
        if (!has(dir, GPU_PROCS)) {
            return out;
        }
        try (BufferedReader in = open(dir, GPU_PROCS)) {
            in.readLine();
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] f = line.split(",", -1);
                out.add(new NvmlProcRow(Long.parseLong(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2])));
            }
        }
        return out;
    }

    private static List<NvmlUtilRow> readNvmlUtil(Path dir) throws IOException {
        List<NvmlUtilRow> out = new ArrayList<>();
        if (!has(dir, GPU_PROC_UTIL)) {
            return out;
        }
        try (BufferedReader in = open(dir, GPU_PROC_UTIL)) {
            in.readLine();
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] f = line.split(",", -1);
                out.add(new NvmlUtilRow(Long.parseLong(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]),
                        Long.parseLong(f[3]), Integer.parseInt(f[4]), Integer.parseInt(f[5])));
            }
        }
        return out;
    }

    private static Map<RankKey, List<GpuRow>> readGpus(Path dir, Meta meta) throws IOException {
        if (!Files.isRegularFile(dir.resolve(GPUS)) && !Files.isRegularFile(dir.resolve(GPUS + ".gz"))) {
            return Map.of();
        }
        Map<Integer, RankKey> rankOfGpu = new LinkedHashMap<>();
        for (Job job : meta.jobs()) {
            for (int r = 0; r < job.gpus().size(); r++) {
                rankOfGpu.put(job.gpus().get(r), new RankKey(job.name(), r));
            }
        }
        Map<RankKey, List<GpuRow>> out = new LinkedHashMap<>();
        try (BufferedReader in = open(dir, GPUS)) {
            String header = in.readLine();
            if (header == null || !header.startsWith("t_ms,gpu,uuid,util_pct,mem_util_pct,power_w,sm_clock_mhz")) {
                throw new IOException(dir.resolve(GPUS) + ": unexpected header " + header);
            }
            int lineNo = 1;
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lineNo++;
                String[] f = line.split(",", -1);
                if (f.length < 8) {
                    throw new IOException(dir.resolve(GPUS) + ":" + lineNo + ": expected 8 fields: " + line);
                }
                RankKey rank = rankOfGpu.get(Integer.parseInt(f[1]));
                if (rank == null) {
                    continue; // a GPU no rank of this trace used
                }
                out.computeIfAbsent(rank, k -> new ArrayList<>()).add(new GpuRow(Long.parseLong(f[0]), f[2],
                        decimal(f[3]), decimal(f[4]), decimal(f[5]), decimal(f[6]),
                        f[7].isEmpty() ? null : Integer.valueOf(f[7])));
            }
        }
        return out;
    }

    private static Double decimal(String field) {
        return field.isEmpty() ? null : Double.valueOf(field);
    }

    private static BufferedReader open(Path dir, String name) throws IOException {
        Path plain = dir.resolve(name);
        Path gz = dir.resolve(name + ".gz");
        InputStream in = Files.isRegularFile(gz) ? new GZIPInputStream(Files.newInputStream(gz))
                : Files.newInputStream(plain);
        return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    }

    /** The trace's events of one job and kind, in time order. */
    public List<Event> events(String job, String event) {
        return events.stream().filter(e -> e.job().equals(job) && e.event().equals(event)).toList();
    }

    /** The ranks of a job, in rank order. */
    public List<RankKey> ranks(String job) {
        return counters.keySet().stream().filter(k -> k.job().equals(job))
                .sorted(java.util.Comparator.comparingInt(RankKey::rank)).toList();
    }

    /** A rank's cumulative sent and received bytes at {@code tMs}, interpolated between the two rows around it. */
    public long[] bytesAt(RankKey rank, long tMs) {
        List<CounterRow> rows = counters.get(rank);
        int lo = 0;
        int hi = rows.size() - 1;
        if (tMs <= rows.get(0).tMs()) {
            return new long[] {rows.get(0).txBytes(), rows.get(0).rxBytes()};
        }
        if (tMs >= rows.get(hi).tMs()) {
            return new long[] {rows.get(hi).txBytes(), rows.get(hi).rxBytes()};
        }
        while (hi - lo > 1) {
            int mid = (lo + hi) >>> 1;
            if (rows.get(mid).tMs() <= tMs) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        CounterRow a = rows.get(lo);
        CounterRow b = rows.get(hi);
        double f = (double) (tMs - a.tMs()) / (b.tMs() - a.tMs());
        return new long[] {a.txBytes() + Math.round(f * (b.txBytes() - a.txBytes())),
                a.rxBytes() + Math.round(f * (b.rxBytes() - a.rxBytes()))};
    }
}
