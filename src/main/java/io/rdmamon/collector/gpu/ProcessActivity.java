package io.rdmamon.collector.gpu;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What each GPU's compute processes did over a sampling interval, from /proc (issue 49): a rank stuck outside its
 * collective (stopped, blocked on a hung mount) burns no CPU and moves no byte, a rank at work does one or the other
 * (rank 0 writing a checkpoint, a data loader on throttled storage). For each GPU, over its compute processes' trees
 * (threads, and children such as data-loader workers, found through the main thread's
 * {@code /proc/<pid>/task/<pid>/children}):
 * <ul>
 *   <li>CPU time as cores: utime+stime of the processes and cutime+cstime of their reaped children
 *       ({@code /proc/<pid>/stat}), the difference since the previous pass;</li>
 *   <li>bytes read and written per second through system calls, {@code rchar}/{@code wchar} of
 *       {@code /proc/<pid>/io} (storage, page cache, sockets, pipes alike; not {@code read_bytes}, which the page cache
 *       and network filesystems bypass); null where no process's {@code io} could be read (another user's process
 *       without CAP_SYS_PTRACE);</li>
 *   <li>the state letters of the processes at this pass ("R", "S", "D", "T", ...).</li>
 * </ul>
 * A process is known by pid and start time, so a reused pid starts from scratch; a process first seen this pass has no
 * baseline and adds nothing until the next one. The input is any GPU key to its process ids (from nvidia-smi's
 * compute apps or NVML), in the host's PID namespace: the collector's pod needs hostPID. One reader, one pass at a
 * time (the collector's sampling thread).
 */
public final class ProcessActivity {
    /** USER_HZ: the unit of /proc's CPU times, 100 on every architecture Linux runs GPUs on. */
    static final long CLOCK_TICKS_PER_SEC = 100;

    /** A GPU's processes' activity; any value null when it could not be measured this pass. */
    public record Activity(Double cpuCores, Double readBytesPerSec, Double writeBytesPerSec, String states) {
    }

    /** One process's totals at a pass. */
    private record Totals(long cpuTicks, Long rchar, Long wchar) {
    }

    /** A process: pid and start time (clock ticks after boot). */
    private record Key(int pid, long startTicks) {
    }

    /** One process's reading: its key, state letter and totals. */
    private record Reading(Key key, char state, Totals totals) {
    }

    private final Path procRoot;
    private Map<Key, Totals> previous = Map.of();
    private long previousNanos;

    /** @param procRoot the host's /proc (the collector's pod: hostPID, so its own /proc is the host's) */
    public ProcessActivity(Path procRoot) {
        this.procRoot = procRoot;
    }

    /** Each GPU's activity since the previous pass; a GPU without a readable process is absent. */
    public <K> Map<K, Activity> sample(Map<K, ? extends Collection<? extends Number>> pidsByGpu, long nowNanos) {
        Map<Key, Totals> current = new HashMap<>();
        Map<K, Activity> out = new LinkedHashMap<>();
        double secs = (nowNanos - previousNanos) / 1e9;
        for (Map.Entry<K, ? extends Collection<? extends Number>> gpu : pidsByGpu.entrySet()) {
            long ticks = 0;
            long read = 0;
            long written = 0;
            boolean baseline = false;
            boolean io = false;
            Set<Character> states = new TreeSet<>();
            for (int pid : tree(gpu.getValue())) {
                Reading r = read(pid);
                if (r == null) {
                    continue; // gone since it was listed
                }
                current.put(r.key(), r.totals());
                states.add(r.state());
                Totals before = previous.get(r.key());
                if (before == null) {
                    continue;
                }
                baseline = true;
                ticks += Math.max(0, r.totals().cpuTicks() - before.cpuTicks());
                if (r.totals().rchar() != null && before.rchar() != null) {
                    io = true;
                    read += Math.max(0, r.totals().rchar() - before.rchar());
                    written += Math.max(0, r.totals().wchar() - before.wchar());
                }
            }
            if (states.isEmpty()) {
                continue;
            }
            StringBuilder letters = new StringBuilder();
            states.forEach(letters::append);
            boolean rated = baseline && secs > 0;
            out.put(gpu.getKey(), new Activity(rated ? round(ticks / (double) CLOCK_TICKS_PER_SEC / secs) : null,
                    rated && io ? round(read / secs) : null, rated && io ? round(written / secs) : null,
                    letters.toString()));
        }
        previous = current;
        previousNanos = nowNanos;
        return out;
    }

    /**
     * The processes and their descendants, by the children file of each one's main thread: DataLoader workers and
     * torchrun's worker are started from it. Every thread's file would find children forked elsewhere too, at one
     * read per thread (a training process has 40-100): about 4 us each here, some 2.5 ms a pass for 8 such processes.
     */
    private Set<Integer> tree(Collection<? extends Number> roots) {
        Set<Integer> out = new HashSet<>();
        List<Integer> todo = new ArrayList<>();
        roots.forEach(pid -> todo.add(pid.intValue()));
        while (!todo.isEmpty()) {
            int pid = todo.remove(todo.size() - 1);
            if (!out.add(pid)) {
                continue;
            }
            String children = readOrNull(procRoot.resolve(pid + "/task/" + pid + "/children"));
            if (children == null) {
                continue; // gone, or a kernel without children files (CONFIG_PROC_CHILDREN): the process alone
            }
            for (String child : children.trim().split("\\s+")) {
                if (!child.isEmpty() && child.chars().allMatch(Character::isDigit)) {
                    todo.add(Integer.parseInt(child));
                }
            }
        }
        return out;
    }

    private Reading read(int pid) {
        String stat = readOrNull(procRoot.resolve(pid + "/stat"));
        if (stat == null) {
            return null;
        }
        // the command name may hold spaces and parentheses: fields follow the last ')'
        int close = stat.lastIndexOf(')');
        String[] f = stat.substring(close + 2).trim().split("\\s+");
        if (close < 0 || f.length < 20) {
            return null;
        }
        // after the name: state(0) ... utime(11) stime(12) cutime(13) cstime(14) ... starttime(19)
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
        Long rchar = null;
        Long wchar = null;
        String io = readOrNull(procRoot.resolve(pid + "/io"));
        if (io != null) {
            for (String line : io.split("\n")) {
                if (line.startsWith("rchar:")) {
                    rchar = Long.parseLong(line.substring(6).trim());
                } else if (line.startsWith("wchar:")) {
                    wchar = Long.parseLong(line.substring(6).trim());
                }
            }
            if (rchar == null || wchar == null) {
                rchar = null;
                wchar = null;
            }
        }
        return new Reading(new Key(pid, Long.parseLong(f[19])), f[0].charAt(0), new Totals(ticks, rchar, wchar));
    }

    /** The file's text, null when it is gone or cannot be read (another user's io without CAP_SYS_PTRACE). */
    private static String readOrNull(Path file) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException | SecurityException e) {
            return null;
        }
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
