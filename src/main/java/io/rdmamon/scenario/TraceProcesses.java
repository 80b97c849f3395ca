package io.rdmamon.scenario;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A rank's process activity read from a trace's procs.csv as rdmamon's collector reads it on a node: at each sampling
 * instant, the GPU's compute processes (those of the rank's processes NVML listed at its last poll; without NVML
 * readings, the rank's first process) and their process trees (children by parent pid: data-loader workers,
 * torchrun's worker) at the latest reading, CPU time and rchar/wchar of the processes seen at both ends of the
 * interval (a process that appeared in between has no baseline yet), and the state letters at the interval's end.
 */
final class TraceProcesses {
    /** The activity over an interval; read/write null where no process's io could be read. */
    record Activity(Double cpuCores, Double readBytesPerSec, Double writeBytesPerSec, String states) {
    }

    private final NcclTrace trace;
    private final Map<NcclTrace.RankKey, List<Reading>> readings = new HashMap<>();

    /** The rank's tree at one instant: pid to its row. */
    private record Reading(long tMs, Map<Integer, NcclTrace.ProcRow> rows) {
    }

    TraceProcesses(NcclTrace trace) {
        this.trace = trace;
        for (Map.Entry<NcclTrace.RankKey, List<NcclTrace.ProcRow>> e : trace.processes().entrySet()) {
            List<Reading> list = new ArrayList<>();
            for (NcclTrace.ProcRow row : e.getValue()) {
                if (list.isEmpty() || list.get(list.size() - 1).tMs() != row.tMs()) {
                    list.add(new Reading(row.tMs(), new HashMap<>()));
                }
                list.get(list.size() - 1).rows().put(row.pid(), row);
            }
            readings.put(e.getKey(), list);
        }
    }

    /** The activity of the rank's GPU processes over (fromMs, toMs]; null when it has none or no reading. */
    Activity over(NcclTrace.RankKey rank, long fromMs, long toMs) {
        Reading end = at(rank, toMs);
        if (end == null) {
            return null;
        }
        Set<Integer> tree = tree(end, gpuProcesses(end, toMs));
        if (tree.isEmpty()) {
            return null;
        }
        Set<Character> states = new TreeSet<>();
        for (int pid : tree) {
            states.add(end.rows().get(pid).state().charAt(0));
        }
        StringBuilder letters = new StringBuilder();
        states.forEach(letters::append);
        Reading start = at(rank, fromMs);
        if (start == null || start.tMs() >= end.tMs()) {
            return new Activity(null, null, null, letters.toString());
        }
        double secs = (end.tMs() - start.tMs()) / 1000.0;
        long ticks = 0;
        long read = 0;
        long written = 0;
        boolean io = false;
        for (int pid : tree) {
            NcclTrace.ProcRow a = start.rows().get(pid);
            NcclTrace.ProcRow b = end.rows().get(pid);
            if (a == null) {
                continue; // no baseline yet
            }
            ticks += Math.max(0, b.cpuTicks() - a.cpuTicks());
            if (a.rchar() != null && b.rchar() != null) {
                io = true;
                read += Math.max(0, b.rchar() - a.rchar());
                written += Math.max(0, b.wchar() - a.wchar());
            }
        }
        double cores = ticks / (double) trace.meta().clockTicksPerSec() / secs;
        return new Activity(round(cores), io ? round(read / secs) : null, io ? round(written / secs) : null,
                letters.toString());
    }

    /** The latest reading at or before t, null before the first. */
    private Reading at(NcclTrace.RankKey rank, long t) {
        List<Reading> list = readings.get(rank);
        if (list == null || list.isEmpty() || list.get(0).tMs() > t) {
            return null;
        }
        int lo = 0;
        int hi = list.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (list.get(mid).tMs() <= t) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return list.get(lo);
    }

    /** The reading's processes NVML listed on the GPU at its last poll before t; without NVML, the tree's root. */
    private Set<Integer> gpuProcesses(Reading reading, long t) {
        Set<Integer> out = new HashSet<>();
        if (trace.nvmlProcesses().isEmpty()) {
            for (NcclTrace.ProcRow row : reading.rows().values()) {
                if (!reading.rows().containsKey(row.ppid())) {
                    out.add(row.pid());
                }
            }
            return out;
        }
        long last = -1;
        for (NcclTrace.NvmlProcRow p : trace.nvmlProcesses()) {
            if (p.tMs() <= t) {
                last = Math.max(last, p.tMs());
            }
        }
        for (NcclTrace.NvmlProcRow p : trace.nvmlProcesses()) {
            if (p.tMs() == last && reading.rows().containsKey(p.pid())) {
                out.add(p.pid());
            }
        }
        return out;
    }

    /** The roots and their descendants in the reading. */
    private static Set<Integer> tree(Reading reading, Set<Integer> roots) {
        Map<Integer, List<Integer>> children = new HashMap<>();
        for (NcclTrace.ProcRow row : reading.rows().values()) {
            children.computeIfAbsent(row.ppid(), k -> new ArrayList<>()).add(row.pid());
        }
        Set<Integer> out = new HashSet<>();
        List<Integer> todo = new ArrayList<>(roots);
        while (!todo.isEmpty()) {
            int pid = todo.remove(todo.size() - 1);
            if (out.add(pid)) {
                todo.addAll(children.getOrDefault(pid, List.of()));
            }
        }
        return out;
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
