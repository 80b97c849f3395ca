package io.rdmamon.collector.gpu;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class ProcessActivityTest {
    @TempDir
    Path proc;

    /** A /proc/<pid> entry as the kernel writes it: stat with the given times, io unless null, children per task. */
    private void process(int pid, String comm, char state, long utime, long stime, long cutime, long start,
                         Long rchar, Long wchar, String children) throws IOException {
        Path dir = proc.resolve(Integer.toString(pid));
        Files.createDirectories(dir.resolve("task/" + pid));
        Files.writeString(dir.resolve("stat"), pid + " (" + comm + ") " + state + " 1 " + pid + " " + pid
                + " 0 -1 4194560 100 0 0 0 " + utime + " " + stime + " " + cutime + " 0 20 0 4 0 " + start
                + " 1000000 500 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n");
        if (rchar != null) {
            Files.writeString(dir.resolve("io"), "rchar: " + rchar + "\nwchar: " + wchar + "\nsyscr: 1\nsyscw: 1\n"
                    + "read_bytes: 0\nwrite_bytes: 0\ncancelled_write_bytes: 0\n");
        }
        Files.writeString(dir.resolve("task/" + pid + "/children"), children);
    }

    @Test
    void shouldSumCpuAndBytesOverTheProcessTreeAsRates() throws IOException {
        // a training process (a name with a space and parentheses) and its data-loader worker
        process(100, "pt (main) x", 'R', 1000, 200, 0, 5000, 10_000L, 20_000L, "101 ");
        process(101, "pt_data_worker", 'S', 50, 10, 0, 5001, 1_000_000L, 0L, "");
        ProcessActivity reader = new ProcessActivity(proc);
        Map<String, ProcessActivity.Activity> first = reader.sample(Map.of("GPU-a", Set.of(100)), 0);
        // no baseline yet: states only
        assertThat(first.get("GPU-a")).isEqualTo(new ProcessActivity.Activity(null, null, null, "RS"));

        process(100, "pt (main) x", 'R', 1120, 230, 0, 5000, 10_000L, 5_020_000L, "101 ");
        process(101, "pt_data_worker", 'D', 60, 20, 0, 5001, 13_700_000L, 0L, "");
        ProcessActivity.Activity a = reader.sample(Map.of("GPU-a", Set.of(100)), 2_000_000_000L).get("GPU-a");
        // (150 + 20) ticks over 2 s: 0.85 cores; 12.7 MB read, 5 MB written over 2 s
        assertThat(a.cpuCores()).isEqualTo(0.85);
        assertThat(a.readBytesPerSec()).isEqualTo(6_350_000.0);
        assertThat(a.writeBytesPerSec()).isEqualTo(2_500_000.0);
        assertThat(a.states()).isEqualTo("DR");
    }

    @Test
    void shouldReadAStoppedProcessAsNoProgressAndUnreadableIoAsNull() throws IOException {
        process(200, "python3", 'T', 500, 100, 0, 7000, null, null, "");
        ProcessActivity reader = new ProcessActivity(proc);
        reader.sample(Map.of(0, Set.of(200)), 0);
        ProcessActivity.Activity a = reader.sample(Map.of(0, Set.of(200)), 1_000_000_000L).get(0);
        assertThat(a).isEqualTo(new ProcessActivity.Activity(0.0, null, null, "T"));
    }

    @Test
    void shouldStartAReusedPidFromScratchAndLeaveOutGpusWithoutProcesses() throws IOException {
        process(300, "python3", 'R', 100, 0, 0, 8000, 0L, 0L, "");
        ProcessActivity reader = new ProcessActivity(proc);
        reader.sample(Map.of("g", Set.of(300)), 0);
        // the pid now names another process (another start time): no baseline, no negative rate
        process(300, "python3", 'R', 5, 0, 0, 9000, 0L, 0L, "");
        ProcessActivity.Activity a = reader.sample(Map.of("g", Set.of(300), "idle", Set.of(999)), 1_000_000_000L)
                .get("g");
        assertThat(a.cpuCores()).isNull();
        assertThat(reader.sample(Map.of("idle", Set.of(999)), 2_000_000_000L)).isEmpty();
    }

    @Test
    void shouldSeeThisJvmWorkAndReadThroughItsOwnProcEntry() throws IOException {
        Path real = Path.of("/proc");
        int self = (int) ProcessHandle.current().pid();
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(real.resolve(self + "/stat")), "Linux /proc");
        ProcessActivity reader = new ProcessActivity(real);
        long t0 = System.nanoTime();
        reader.sample(Map.of("jvm", Set.of(self)), t0);
        long end = System.nanoTime() + 300_000_000L;
        double x = 0;
        while (System.nanoTime() < end) {
            x += Math.sqrt(x + 1);
        }
        Path file = proc.resolve("data");
        Files.write(file, new byte[1 << 20]);
        for (int i = 0; i < 4; i++) {
            Files.readAllBytes(file);
        }
        ProcessActivity.Activity a = reader.sample(Map.of("jvm", Set.of(self)), System.nanoTime()).get("jvm");
        assertThat(x).isPositive();
        assertThat(a.cpuCores()).isGreaterThan(0.3);
        // the leader thread's state: surefire's main thread waits (S) while a test thread works
        assertThat(a.states()).matches("[RS]+");
        if (a.readBytesPerSec() != null) {
            assertThat(a.readBytesPerSec()).isGreaterThan(4.0 * (1 << 20) / 2);
            assertThat(a.writeBytesPerSec()).isGreaterThan(0);
        }
    }
}
