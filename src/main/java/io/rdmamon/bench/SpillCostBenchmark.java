package io.rdmamon.bench;

import io.rdmamon.sim.SysfsTreeWriter;
import io.rdmamon.sim.SysfsTreeWriter.DeviceKind;
import io.rdmamon.support.EmbeddedKafkaBroker;
import io.rdmamon.support.FileTrees;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What the spill log costs a collector (every record written to it, written and fsynced every flush interval): two
 * real collector JVMs side by side, on one simulated node and one in-process broker, over the same window. One runs
 * with the defaults (spill log on); the other with {@code collector.buffer.spill.bytes=0} (memory only), which with the
 * broker up is what a collector did before the spill log, when nothing went to disk. Whole-process CPU (all threads)
 * from {@code /proc/PID/stat}, bytes written from {@code /proc/PID/io}.
 *
 * <pre>java -cp 'target/classes:target/lib/*' io.rdmamon.bench.SpillCostBenchmark [intervalMs] [seconds] [warmupSeconds]</pre>
 */
public final class SpillCostBenchmark {
    private static final int DEVICES = 8;
    private static final int PORTS = 2;
    /** The thread name as /proc shows it (15 characters). */
    private static final String FLUSH_THREAD = "rdmamon-spill-flush".substring(0, 15);

    private SpillCostBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        long intervalMs = args.length > 0 ? Long.parseLong(args[0]) : 100;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        int warmupSeconds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        Path work = Files.createTempDirectory(SysfsTreeWriter.preferredTempRoot(), "rdmamon-bench-spill");
        // the spill directories on a disk file system (the temp folder), where an fsync costs what it costs on a node
        Path disk = Files.createTempDirectory("rdmamon-bench-spill");
        ScheduledExecutorService traffic = Executors.newSingleThreadScheduledExecutor();
        List<ChildJvm> children = new ArrayList<>();
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(work.resolve("kafka"), 0)) {
            SysfsTreeWriter tree = new SysfsTreeWriter(work.resolve("sys"));
            for (int d = 0; d < DEVICES; d++) {
                tree.addDevice("mlx5_" + d, DeviceKind.MLX5, PORTS, SysfsTreeWriter.ETHERNET);
            }
            traffic.scheduleAtFixedRate(() -> {
                for (int d = 0; d < DEVICES; d++) {
                    for (int p = 1; p <= PORTS; p++) {
                        tree.addTraffic("mlx5_" + d, p, 1_000_000_000L, 900_000_000L, 250_000, 240_000);
                    }
                }
            }, 0, intervalMs, TimeUnit.MILLISECONDS);
            ChildJvm withLog = collector(work, disk, broker, intervalMs, "with-log", List.of());
            children.add(withLog);
            ChildJvm memoryOnly = collector(work, disk, broker, intervalMs, "memory-only",
                    List.of("--set", "collector.buffer.spill.bytes=0"));
            children.add(memoryOnly);

            Thread.sleep(warmupSeconds * 1000L);
            withLog.checkAlive();
            memoryOnly.checkAlive();
            double[] cpu0 = {withLog.cpuSeconds(), memoryOnly.cpuSeconds()};
            double flush0 = threadCpuSeconds(withLog.pid(), FLUSH_THREAD);
            long[] io0 = {writeBytes(withLog.pid()), writeBytes(memoryOnly.pid())};
            long start = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            double elapsed = (System.nanoTime() - start) / 1e9;
            double[] cpu = {withLog.cpuSeconds() - cpu0[0], memoryOnly.cpuSeconds() - cpu0[1]};
            double flush = threadCpuSeconds(withLog.pid(), FLUSH_THREAD) - flush0;
            long[] io = {writeBytes(withLog.pid()) - io0[0], writeBytes(memoryOnly.pid()) - io0[1]};
            double passes = elapsed * 1000 / intervalMs;
            System.out.printf("spill log cost: 2 collector JVMs side by side, %d devices x %d ports, interval %d ms, "
                    + "%.0f s measured after %d s warm-up (%.0f passes each)%n", DEVICES, PORTS, intervalMs, elapsed,
                    warmupSeconds, passes);
            System.out.printf("  %-34s %10s %14s %14s%n", "", "CPU s", "CPU ms/pass", "disk KB/pass");
            System.out.printf("  %-34s %10.2f %14.3f %14.2f%n", "spill log on (default)", cpu[0],
                    cpu[0] * 1000 / passes, io[0] / 1024.0 / passes);
            System.out.printf("  %-34s %10.2f %14.3f %14.2f%n", "memory only (spill.bytes=0)", cpu[1],
                    cpu[1] * 1000 / passes, io[1] / 1024.0 / passes);
            System.out.printf("  whole-process CPU ratio, spill log on / memory only: %.3f%n", cpu[0] / cpu[1]);
            System.out.printf("  flush thread (write + fsync + delivered mark): %.3f ms/pass, %.2f %% of the process%n",
                    flush * 1000 / passes, 100 * flush / cpu[0]);
        } finally {
            traffic.shutdownNow();
            children.forEach(ChildJvm::close);
            FileTrees.deleteQuietly(work);
            FileTrees.deleteQuietly(disk);
        }
    }

    private static ChildJvm collector(Path work, Path disk, EmbeddedKafkaBroker broker, long intervalMs, String name,
                                      List<String> extra) throws IOException {
        List<String> args = new ArrayList<>(List.of("collector", "--sysfs", work.resolve("sys").toString(),
                "--interval", intervalMs + "ms", "--node", name, "--bootstrap-servers", broker.bootstrapServers(),
                "--metrics-port", "-1", "--set", "collector.buffer.spill.path=" + disk.resolve("spill-" + name),
                "--set", "kafka.client.id=rdmamon-collector-" + name));
        args.addAll(extra);
        // no hsperfdata file: its updates would count as disk writes of both
        return ChildJvm.start("128m", work.resolve(name + ".log"), args, Map.of("JAVA_TOOL_OPTIONS", "-XX:-UsePerfData"));
    }

    /** CPU seconds of the threads of {@code pid} named {@code comm}, from /proc/PID/task/TID/stat. */
    private static double threadCpuSeconds(long pid, String comm) throws IOException {
        double seconds = 0;
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    if (Files.readString(task.resolve("comm")).trim().equals(comm)) {
                        String stat = Files.readString(task.resolve("stat"));
                        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                        seconds += (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0; // USER_HZ
                    }
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        }
        return seconds;
    }

    /** Bytes the process caused to be written to storage ({@code write_bytes} of /proc/PID/io); -1 if unreadable. */
    private static long writeBytes(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "io"))) {
                if (line.startsWith("write_bytes:")) {
                    return Long.parseLong(line.substring("write_bytes:".length()).trim());
                }
            }
        } catch (IOException e) {
            // not readable (another user's process, no task I/O accounting)
        }
        return -1;
    }
}
