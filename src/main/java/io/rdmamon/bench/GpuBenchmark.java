package io.rdmamon.bench;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.collector.CollectorJvmOptions;
import io.rdmamon.collector.CollectorMain;
import io.rdmamon.collector.SampleJson;
import io.rdmamon.collector.gpu.GpuConfig;
import io.rdmamon.collector.gpu.GpuSource;
import io.rdmamon.model.GpuSample;
import io.rdmamon.sim.SysfsTreeWriter;
import io.rdmamon.sim.SysfsTreeWriter.DeviceKind;
import io.rdmamon.support.FileTrees;
import io.rdmamon.support.LogFiles;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * {@code rdmamon bench collector --gpu}, on a GPU machine: what reading the GPUs costs. First the GPU source alone,
 * in this process, as the collector runs it (every GPU every {@code collector.gpu.read.interval.ms}, processes once
 * per interval), beside a process given with {@code --beside} (e.g. pynvml reading the same fields at the same rate)
 * measured over the same time; then the whole collector as two processes of its own on a simulated RDMA node, one
 * reading the GPUs and one not ({@code collector.gpu.enabled=false}), side by side.
 *
 * <p>CPU comes from /proc, never from timed loops: {@code utime + stime} of {@code /proc/PID/stat} (all threads, in
 * 10 ms ticks; reaped children, such as nvidia-smi runs, from {@code cutime + cstime}) and, finer, the nanoseconds on
 * CPU of {@code /proc/PID/task/TID/schedstat}. The GPU source's share of this process: its threads ({@code gpu-nvml},
 * {@code gpu-processes}, {@code nvidia-smi}), the sampling calls, and its child processes.
 */
final class GpuBenchmark {
    private static final Set<String> GPU_THREADS = Set.of("gpu-nvml", "gpu-processes", "nvidia-smi");
    private static final int MLX5_DEVICES = 4;
    private static final int MLX5_PORTS = 2;

    record Options(Duration interval, Duration warmup, Duration measure, List<String> settings, String beside,
                   boolean collectorProcesses) {
    }

    private GpuBenchmark() {
    }

    /** {@code bench collector} on the collector's own class path (the GPU machine has no other jars). */
    public static void main(String[] args) {
        System.exit(new CommandLine(new BenchCommand.Collector()).execute(args));
    }

    static void run(Options options, PrintWriter out) throws Exception {
        gpuSource(options, out);
        if (options.collectorProcesses()) {
            Path work = Files.createTempDirectory(SysfsTreeWriter.preferredTempRoot(), "rdmamon-bench-gpu");
            try {
                collectorProcesses(options, work, out);
            } finally {
                FileTrees.deleteQuietly(work);
            }
        }
    }

    private static void gpuSource(Options options, PrintWriter out) throws Exception {
        Map<String, Object> props = new HashMap<>();
        props.put(GpuConfig.PROCESSES_CONFIG, "true");
        for (String setting : options.settings()) {
            int eq = setting.indexOf('=');
            props.put(setting.substring(0, eq), setting.substring(eq + 1));
        }
        long intervalMs = options.interval().toMillis();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long self = ProcessHandle.current().pid();
        Process beside = options.beside() == null ? null : new ProcessBuilder("bash", "-c", options.beside())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        SampleJson json = new SampleJson();
        try (GpuSource source = new GpuSource(new GpuConfig(props), "bench-node", intervalMs, true,
                new SimpleMeterRegistry())) {
            long[] sampling = new long[1];
            Runnable pass = () -> {
                long cpu0 = threads.getCurrentThreadCpuTime();
                List<GpuSample> samples = source.sample(System.currentTimeMillis());
                sampling[0] += threads.getCurrentThreadCpuTime() - cpu0;
                lastSamples = samples;
            };
            runFor(options.warmup(), intervalMs, pass);
            Set<Long> besides = beside == null ? Set.of() : tree(beside.pid());
            Cpu gpu0 = gpuSourceCpu(self, besides);
            long sampling0 = sampling[0];
            Cpu beside0 = beside == null ? null : processCpu(beside.pid());
            long passes = runFor(options.measure(), intervalMs, pass);
            Cpu gpu = gpuSourceCpu(self, besides).minus(gpu0).plusNanos(sampling[0] - sampling0);
            String reader = source.isOff() ? "no driver found" : source.reader();
            out.printf("GPU source in-process: %s; interval %d ms, %d s warm-up, %d intervals measured%n", reader,
                    intervalMs, options.warmup().toSeconds(), passes);
            out.printf("  settings: %s%n", options.settings().isEmpty() ? "defaults" : String.join(" ",
                    options.settings()));
            out.printf("  %-34s %14s %16s%n", "", "CPU/interval", "(/proc/stat)");
            out.printf("  %-34s %11.3f ms %13.2f ms%n", "rdmamon GPU source", gpu.nanos / 1e6 / passes,
                    gpu.statSeconds * 1000 / passes);
            if (beside != null) {
                if (!beside.isAlive()) {
                    throw new IllegalStateException("--beside exited with " + beside.exitValue());
                }
                Cpu b = processCpu(beside.pid()).minus(beside0);
                out.printf("  %-34s %11.3f ms %13.2f ms%n", "beside: " + abbreviate(options.beside(), 26),
                        b.nanos / 1e6 / passes, b.statSeconds * 1000 / passes);
                out.printf("  GPU source / beside: %.2fx (schedstat), %.2fx (stat ticks)%n", (double) gpu.nanos
                        / b.nanos, b.statSeconds == 0 ? Double.NaN : gpu.statSeconds / b.statSeconds);
            }
            for (GpuSample s : lastSamples) {
                out.printf("  last sample: %s%n", new String(json.gpuSample(s), StandardCharsets.UTF_8));
            }
            out.printf("  compute processes of the last sample (pids by GPU): %s%n", source.processes() == null
                    ? "none counted" : source.processes().pidsByUuid());
            out.flush();
        } finally {
            if (beside != null) {
                beside.descendants().forEach(ProcessHandle::destroyForcibly);
                beside.destroyForcibly();
            }
        }
    }

    private static volatile List<GpuSample> lastSamples = List.of();

    /**
     * Three collectors on the same simulated node: GPUs with their processes' activity, GPUs alone, no GPUs; CPU per
     * pass of each.
     */
    private static void collectorProcesses(Options options, Path work, PrintWriter out) throws Exception {
        SysfsTreeWriter tree = SysfsTreeWriter.inPlace(work.resolve("sys"));
        for (int d = 0; d < MLX5_DEVICES; d++) {
            tree.addDevice("mlx5_" + d, DeviceKind.MLX5, MLX5_PORTS, SysfsTreeWriter.ETHERNET);
        }
        long intervalMs = options.interval().toMillis();
        List<ChildJvm> children = new ArrayList<>();
        try {
            // with GPUs and their processes' activity, with GPUs alone, without GPUs
            List<String> names = List.of("collector with GPUs + process activity", "collector with GPUs, no activity",
                    "collector without GPUs");
            for (String run : List.of("activity", "auto", "false")) {
                String gpus = run.equals("false") ? "false" : "auto";
                List<String> args = new ArrayList<>(List.of("--sysfs", tree.root().toString(), "--interval",
                        intervalMs + "ms", "--node", "bench-node", "--stdout", "--metrics-port", "-1",
                        "--set", "collector.sysfs.keep.open=always", "--set", "eadm.enabled=false",
                        "--set", "collector.podresources.socket=", "--set", "collector.buffer.spill.path="
                                + work.resolve("spill-" + run), "--set", GpuConfig.ENABLED_CONFIG + "=" + gpus,
                        "--set", GpuConfig.PROCESSES_CONFIG + "=true",
                        "--set", GpuConfig.PROCESS_ACTIVITY_CONFIG + "=" + run.equals("activity")));
                options.settings().forEach(setting -> args.addAll(List.of("--set", setting)));
                children.add(ChildJvm.start(CollectorJvmOptions.load(), System.getProperty("java.class.path"),
                        CollectorMain.class.getName(), work.resolve("collector-gpus-" + run + ".log"), args,
                        CollectorJvmOptions.ENVIRONMENT));
            }
            long[] tick = new long[1];
            Runnable traffic = () -> {
                for (int d = 0; d < MLX5_DEVICES; d++) {
                    for (int p = 1; p <= MLX5_PORTS; p++) {
                        tree.addTraffic("mlx5_" + d, p, 1_000_000_000L, 900_000_000L, 250_000, 240_000);
                        tree.addCounter("mlx5_" + d, p, "np_cnp_sent", tick[0] % 3);
                    }
                }
                tick[0]++;
            };
            runFor(options.warmup(), intervalMs, traffic);
            List<Cpu> before = new ArrayList<>();
            for (ChildJvm c : children) {
                c.checkAlive();
                before.add(processCpu(c.pid()));
            }
            long passes = runFor(options.measure(), intervalMs, traffic);
            out.printf("collector processes side by side (--stdout, %d mlx5 x %d ports, eadm off), interval %d ms, "
                    + "%d s warm-up, %d passes measured%n", MLX5_DEVICES, MLX5_PORTS, intervalMs,
                    options.warmup().toSeconds(), passes);
            // whole processes from stat's ticks: a JVM's compiler threads come and go, and an ended thread's
            // schedstat goes with it
            out.printf("  %-34s %10s%n", "", "CPU/pass");
            double[] perPass = new double[children.size()];
            for (int i = 0; i < children.size(); i++) {
                ChildJvm c = children.get(i);
                c.checkAlive();
                Cpu cpu = processCpu(c.pid()).minus(before.get(i));
                perPass[i] = cpu.statSeconds * 1000 / passes;
                out.printf("  %-40s %7.2f ms%n", names.get(i), perPass[i]);
            }
            out.printf("  GPUs add %.2f ms per pass; their processes' activity %.2f ms more%n",
                    perPass[1] - perPass[2], perPass[0] - perPass[1]);
            Path withGpus = work.resolve("collector-gpus-activity.log");
            LogFiles.lastLines(withGpus, 400).stream().filter(l -> l.contains("GPU source") || l.contains("gpu\""))
                    .limit(4).forEach(l -> out.println("  with GPUs, log: " + abbreviate(l, 400)));
            out.flush();
        } finally {
            for (ChildJvm c : children) {
                c.close();
            }
        }
    }

    /** Runs {@code pass} once per interval for {@code duration}; returns the passes run. */
    private static long runFor(Duration duration, long intervalMs, Runnable pass) throws InterruptedException {
        long intervals = Math.max(1, duration.toMillis() / intervalMs);
        long next = System.nanoTime();
        for (long i = 0; i < intervals; i++) {
            next += intervalMs * 1_000_000;
            long sleep = next - System.nanoTime();
            if (sleep > 0) {
                Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
            }
            pass.run();
        }
        return intervals;
    }

    /** CPU used: nanoseconds on CPU (schedstat of the threads counted) and stat's user + system seconds. */
    private record Cpu(long nanos, double statSeconds) {
        Cpu minus(Cpu before) {
            return new Cpu(nanos - before.nanos, statSeconds - before.statSeconds);
        }

        Cpu plusNanos(long more) {
            return new Cpu(nanos + more, statSeconds);
        }
    }

    /** A whole process: every thread's schedstat, and stat with its reaped children. */
    private static Cpu processCpu(long pid) throws IOException {
        long nanos = threadNanos(pid, name -> true);
        double stat = statSeconds(pid, true);
        for (ProcessHandle child : ProcessHandle.of(pid).map(p -> p.descendants().toList()).orElse(List.of())) {
            nanos += threadNanos(child.pid(), name -> true);
            stat += statSeconds(child.pid(), false);
        }
        return new Cpu(nanos, stat);
    }

    /** A process and its descendants now. */
    private static Set<Long> tree(long pid) {
        Set<Long> pids = new java.util.HashSet<>(Set.of(pid));
        ProcessHandle.of(pid).ifPresent(p -> p.descendants().forEach(d -> pids.add(d.pid())));
        return pids;
    }

    /**
     * The GPU source's share of this process: its threads (schedstat; stat ticks of those threads), its live child
     * processes (nvidia-smi) and the children reaped so far (cutime + cstime); not the {@code --beside} process, also a
     * child of this one.
     */
    private static Cpu gpuSourceCpu(long self, Set<Long> besides) throws IOException {
        long nanos = threadNanos(self, GPU_THREADS::contains);
        double stat = threadStatSeconds(self, GPU_THREADS::contains) + statSeconds(self, true)
                - statSeconds(self, false);
        for (ProcessHandle child : ProcessHandle.current().descendants().filter(p -> !besides.contains(p.pid()))
                .toList()) {
            nanos += threadNanos(child.pid(), name -> true);
            stat += statSeconds(child.pid(), false);
        }
        return new Cpu(nanos, stat);
    }

    private static long threadNanos(long pid, Predicate<String> name) throws IOException {
        long nanos = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                try {
                    if (name.test(Files.readString(task.resolve("comm")).strip())) {
                        nanos += Long.parseLong(Files.readString(task.resolve("schedstat")).split(" ")[0]);
                    }
                } catch (IOException e) {
                    // the thread ended while listed
                }
            }
        } catch (IOException e) {
            return 0; // the process ended
        }
        return nanos;
    }

    private static double threadStatSeconds(long pid, Predicate<String> name) throws IOException {
        double seconds = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    if (name.test(stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')))) {
                        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                        seconds += (Long.parseLong(f[11]) + Long.parseLong(f[12])) / ThreadTicks.PER_SECOND;
                    }
                } catch (IOException e) {
                    // the thread ended while listed
                }
            }
        }
        return seconds;
    }

    /** utime + stime of every thread, and with {@code children} also cutime + cstime of the reaped children. */
    private static double statSeconds(long pid, boolean children) throws IOException {
        String stat;
        try {
            stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        } catch (IOException e) {
            return 0;
        }
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
        if (children) {
            ticks += Long.parseLong(f[13]) + Long.parseLong(f[14]);
        }
        return ticks / ThreadTicks.PER_SECOND;
    }

    private static String abbreviate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 3) + "...";
    }
}
