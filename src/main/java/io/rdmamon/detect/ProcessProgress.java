package io.rdmamon.detect;

import io.rdmamon.model.GpuSample;

/**
 * Whether a GPU's compute processes made progress over a sample's interval (their process trees: CPU time, bytes
 * through read/write system calls, states seen), and if not, what they show. A rank at work burns CPU or moves bytes;
 * a stuck one does neither: measured on an H200, a rank stopped read 0.01 cores, one blocked on a hung mount 0.02,
 * while a starving data loader read 0.06 cores but 12.7 MB/s through {@code read()}. CPU alone is too thin a margin,
 * so without the byte counters (null: {@code /proc/<pid>/io} unreadable) nothing is said, except for a process seen
 * only stopped ({@code T}), which cannot make progress whatever its counters say.
 */
final class ProcessProgress {
    private ProcessProgress() {
    }

    /**
     * What the GPU's processes show when they made no progress over the interval ("stopped (state T)", ...), or null
     * when they did, or when the sample cannot tell (fields missing, no process).
     *
     * @param cpuFloorCores below this the processes' CPU is no progress ({@code streams.stall.gpu.process.cpu.cores})
     */
    static String stuck(GpuSample g, double cpuFloorCores) {
        if (g.processes() != null && g.processes() == 0) {
            return null; // no process: gone, not stuck
        }
        String states = g.processStates() == null ? "" : g.processStates();
        if (!states.isEmpty() && states.chars().allMatch(c -> c == 'T' || c == 't')) {
            return "stopped (state T)";
        }
        Double cpu = g.processCpuCores();
        Double read = g.processReadBytesPerSec();
        Double written = g.processWriteBytesPerSec();
        if (cpu == null || read == null || written == null || cpu >= cpuFloorCores || read > 0 || written > 0) {
            return null;
        }
        String activity = String.format(java.util.Locale.ROOT, "%.2f cores, no bytes read or written", cpu);
        if (states.indexOf('D') >= 0) {
            return "blocked in I/O (state D, " + activity + ")";
        }
        if (states.indexOf('S') >= 0) {
            return "sleeping without progress (state S, " + activity + ")";
        }
        return "no progress (" + activity + (states.isEmpty() ? "" : ", state " + states) + ")";
    }
}
