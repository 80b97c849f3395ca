package io.rdmamon.scenario;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Each rank's own (virtual) GPU in a trace whose ranks shared the machine's GPU ({@code sharedGpus}: a one-GPU
 * machine), so that such a trace replays as if every rank had a GPU of its own, as on the cluster.
 *
 * <p>A rank's own GPU readings cannot be measured on a shared GPU. What the recordings showed
 * (testbed/nccl/README.md): NVML's per-process samples come for a process only while it has work on the GPU (a rank
 * stopped or blocked outside the GPU has none, a rank stopped inside a collective keeps its spinning kernel and its
 * samples), but sparsely (0.2-4 s apart for a waiting rank, longer for a training one, with 17 processes on the
 * GPU), and their SM and memory figures
 * are not the process's own (99 % for every process with work and 1-4 % memory for a rank waiting in a collective
 * beside training ranks in one recording; 10-40 % and 0 % in the other, NVML asked for a longer window). So the
 * importer models each rank's GPU from what the rank itself did, at the levels issue 44's traces measured on GPUs of
 * their own, and takes from NVML only whether the rank's processes are on the GPU and had work lately:
 * <ul>
 *   <li>{@code processes}: the rank's processes NVML lists on the GPU (last poll), null before the first poll; none:
 *       0 % / 0 %;</li>
 *   <li>writing a checkpoint (its own ckpt_start to ckpt_end, its NIC quiet): {@link #WRITE_UTILIZATION} % / 0 %;
 *       in its own data-loader stall: 0 % / 0 % (the GPU starves);</li>
 *   <li>evaluating (the first {@code --eval-secs} of an evaluation it runs): {@link #EVAL_UTILIZATION} % /
 *       {@link #EVAL_MEMORY} %; training (its NIC sent data over the last second): {@link #TRAIN_UTILIZATION} % /
 *       {@link #TRAIN_MEMORY} %;</li>
 *   <li>otherwise, with an NVML sample of its processes in the last {@link #LOOKBACK_MS} and its host spinning (at
 *       least {@link #SPIN_CORES} cores over the last second) or stopped: waiting inside a collective, 100 % / 0 %;
 *       else 0 % / 0 % (blocked or stopped outside the GPU, its queue drained);</li>
 *   <li>power and SM clock: the whole GPU's.</li>
 * </ul>
 */
final class SharedGpus {
    /**
     * A rank waiting in a collective beside 16 other processes had NVML samples 0.2-4 s apart; longer would let a rank
     * that blocked outside the GPU read as waiting for longer.
     */
    static final long LOOKBACK_MS = 5_000;
    static final double TRAIN_UTILIZATION = 90;
    static final double TRAIN_MEMORY = 16;
    static final double EVAL_UTILIZATION = 99;
    static final double EVAL_MEMORY = 4;
    static final double WRITE_UTILIZATION = 3;
    /** NVML's processes were polled every 100 ms: a second without a listing of the trace's is none. */
    private static final long POLL_GAP_MS = 1_000;
    /** A waiting rank's host thread spins: at least this much CPU over the last second. */
    private static final double SPIN_CORES = 0.5;
    /** A rank whose NIC sends at least this much over the last second is training (its collectives run). */
    private static final double COMPUTE_BYTES_PER_SEC = 10e6;

    private SharedGpus() {
    }

    static NcclTrace virtualGpus(NcclTrace trace) {
        if (trace.gpus().isEmpty() || trace.nvmlProcesses().isEmpty() || trace.processes().isEmpty()) {
            return trace;
        }
        // the whole GPU's readings (a one-GPU machine: every rank's GPU is GPU 0)
        List<NcclTrace.GpuRow> whole = trace.gpus().values().iterator().next();
        Map<Long, Set<Integer>> listed = new LinkedHashMap<>();
        for (NcclTrace.NvmlProcRow p : trace.nvmlProcesses()) {
            listed.computeIfAbsent(p.tMs(), k -> new HashSet<>()).add(p.pid());
        }
        List<Long> polls = new ArrayList<>(listed.keySet());
        TraceProcesses activity = new TraceProcesses(trace);
        Map<NcclTrace.RankKey, List<NcclTrace.GpuRow>> out = new LinkedHashMap<>();
        for (NcclTrace.Job job : trace.meta().jobs()) {
            String evalSecs = NcclTrace.Meta.arg(job, "--eval-secs");
            long evalMs = evalSecs == null ? 0 : Math.round(Double.parseDouble(evalSecs) * 1000);
            boolean rank0Only = job.args().contains("--eval-rank0-only");
            for (NcclTrace.RankKey rank : trace.ranks(job.name())) {
                Set<Integer> pids = new HashSet<>();
                trace.processes().getOrDefault(rank, List.of()).forEach(r -> pids.add(r.pid()));
                List<Long> samples = trace.nvmlUtilization().stream().filter(u -> pids.contains(u.pid()))
                        .map(NcclTrace.NvmlUtilRow::tMs).sorted().toList();
                List<long[]> evals = rank0Only && rank.rank() != 0 ? List.of() : windows(trace, rank, evalMs);
                List<long[]> writes = writes(job, rank.rank()) ? phases(trace, rank, "ckpt_start", "ckpt_end")
                        : List.of();
                List<long[]> stalls = phases(trace, rank, "loader_stall_start", "loader_stall_end");
                List<NcclTrace.GpuRow> rows = new ArrayList<>();
                for (NcclTrace.GpuRow w : whole) {
                    long t = w.tMs();
                    Set<Integer> onGpu = lastPoll(listed, polls, t);
                    Integer processes = null;
                    if (onGpu != null) {
                        int n = 0;
                        for (int pid : onGpu) {
                            n += pids.contains(pid) ? 1 : 0;
                        }
                        processes = n;
                    }
                    boolean sending = trace.bytesAt(rank, t)[0] - trace.bytesAt(rank, t - 1000)[0]
                            >= COMPUTE_BYTES_PER_SEC;
                    double util;
                    double memory = 0;
                    if (processes != null && processes == 0) {
                        util = 0;
                    } else if (inside(writes, t) && !sending) {
                        util = WRITE_UTILIZATION;
                    } else if (inside(stalls, t) && !sending) {
                        util = 0;
                    } else if (inside(evals, t)) {
                        util = EVAL_UTILIZATION;
                        memory = EVAL_MEMORY;
                    } else if (sending) {
                        util = TRAIN_UTILIZATION;
                        memory = TRAIN_MEMORY;
                    } else {
                        util = sampledWithin(samples, t) && spins(activity.over(rank, t - 1000, t)) ? 100 : 0;
                    }
                    rows.add(new NcclTrace.GpuRow(t, w.uuid(), util, memory, w.powerWatts(), w.smClockMHz(),
                            processes));
                }
                out.put(rank, rows);
            }
        }
        return new NcclTrace(trace.meta(), trace.counters(), trace.events(), out, trace.processes(),
                trace.nvmlProcesses(), trace.nvmlUtilization());
    }

    /**
     * The trace's processes NVML listed at its last poll before t: the files hold only polls that listed some of them
     * (NVML was polled at 10 Hz), so none listed for {@link #POLL_GAP_MS} means none on the GPU; null before the
     * first.
     */
    private static Set<Integer> lastPoll(Map<Long, Set<Integer>> listed, List<Long> polls, long t) {
        int i = latest(polls, t);
        if (i < 0) {
            return null;
        }
        return polls.get(i) >= t - POLL_GAP_MS ? listed.get(polls.get(i)) : Set.of();
    }

    /** The index of the latest time at or before t in a sorted list, -1 before the first. */
    private static int latest(List<Long> times, long t) {
        int lo = 0;
        int hi = times.size() - 1;
        if (times.isEmpty() || times.get(0) > t) {
            return -1;
        }
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (times.get(mid) <= t) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** Whether NVML had a per-process sample of the rank's processes in (t - LOOKBACK_MS, t]. */
    private static boolean sampledWithin(List<Long> samples, long t) {
        int i = latest(samples, t);
        return i >= 0 && samples.get(i) > t - LOOKBACK_MS;
    }

    /**
     * Whether the rank's host side can be waiting on a kernel: a rank waiting in a collective spins its host thread
     * (1-2 cores measured), a rank stopped (T) may have left its collective kernel spinning; a rank blocked in a read
     * (no CPU) has drained its queue.
     */
    private static boolean spins(TraceProcesses.Activity a) {
        return a != null && (a.states().contains("T") || a.cpuCores() != null && a.cpuCores() >= SPIN_CORES);
    }

    /** Whether the rank writes the job's checkpoints (train_job.py: DDP's rank 0, every FSDP rank and stage). */
    private static boolean writes(NcclTrace.Job job, int rank) {
        String style = NcclTrace.Meta.arg(job, "--style");
        return rank == 0 || "fsdp".equals(style) || "pipeline".equals(style);
    }

    /** The rank's evaluation passes: from each eval_start, the job's --eval-secs (then it waits for the metric). */
    private static List<long[]> windows(NcclTrace trace, NcclTrace.RankKey rank, long evalMs) {
        List<long[]> out = new ArrayList<>();
        for (NcclTrace.Event e : trace.events(rank.job(), "eval_start")) {
            if (e.rank() == rank.rank()) {
                out.add(new long[] {e.tMs(), e.tMs() + evalMs});
            }
        }
        return out;
    }

    /** The rank's own [start, end) phases between two events; one without its end lasts to the trace's end. */
    private static List<long[]> phases(NcclTrace trace, NcclTrace.RankKey rank, String start, String end) {
        List<long[]> out = new ArrayList<>();
        List<NcclTrace.Event> ends = trace.events(rank.job(), end).stream().filter(e -> e.rank() == rank.rank())
                .toList();
        for (NcclTrace.Event e : trace.events(rank.job(), start)) {
            if (e.rank() == rank.rank()) {
                long stop = ends.stream().mapToLong(NcclTrace.Event::tMs).filter(x -> x >= e.tMs()).min()
                        .orElse(Long.MAX_VALUE);
                out.add(new long[] {e.tMs(), stop});
            }
        }
        return out;
    }

    private static boolean inside(List<long[]> windows, long t) {
        for (long[] w : windows) {
            if (t >= w[0] && t < w[1]) {
                return true;
            }
        }
        return false;
    }
}
