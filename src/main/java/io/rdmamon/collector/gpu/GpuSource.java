package io.rdmamon.collector.gpu;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.support.LogLimiter;
import io.rdmamon.collector.process.SupervisedProcess;
import io.rdmamon.collector.process.SupervisedProcess.Restart;
import io.rdmamon.model.GpuSample;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The node's (in pod mode: the pod's) GPUs, read the way a GPU node offers them: one supervised {@code nvidia-smi
 * --query-gpu=... -lms <read interval>} that prints a line per GPU per reading, averaged into one {@link GpuSample}
 * per GPU per collector interval ({@link GpuAverages}), and a process count per interval ({@link ProcessCounts}).
 * Why nvidia-smi and not NVML directly: NVML is a C library, reached from Java only through a native binding (JNA or
 * JNI) that the collector would have to ship and load; nvidia-smi ships with every driver, and a crash or hang of it
 * is a child process to restart, not a JVM to lose.
 *
 * <p>No driver ({@code collector.gpu.enabled=auto}): when nvidia-smi cannot be started, or says that it cannot reach
 * the driver or finds no GPU before it ever printed a reading, the source turns itself off with one log line
 * ({@value #OFF_METRIC} = 1); the other sources never wait for it. An nvidia-smi that exits later, or stays silent for
 * the silence timeout, is restarted with backoff ({@value #RESTARTS_METRIC}).
 */
public final class GpuSource implements AutoCloseable {
    public static final String LINES_METRIC = "rdmamon.gpu.lines";
    public static final String PARSE_FAILURES_METRIC = "rdmamon.gpu.parse.failures";
    public static final String RESTARTS_METRIC = "rdmamon.gpu.restarts";
    public static final String OFF_METRIC = "rdmamon.gpu.off";

    private static final Logger log = LoggerFactory.getLogger(GpuSource.class);
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(5);

    private final String node;
    private final GpuConfig config;
    private final long intervalMs;
    private final GpuAverages averages = new GpuAverages();
    private final ProcessCounts processCounts;
    private final SupervisedProcess stream;
    private final ScheduledExecutorService counter;
    private final Counter lines;
    private final Counter parseFailures;
    private final Map<Restart, Counter> restarts = new EnumMap<>(Restart.class);
    private final LogLimiter lineLog = new LogLimiter(Duration.ofMinutes(1));

    private volatile boolean everRead;
    private volatile boolean off;
    private volatile String noDriverLine;
    private volatile TimedCounts latestCounts;
    private volatile List<String> uuids = List.of();
    private boolean countingStarted;

    /** The compute processes' ids per GPU uuid, and when they were listed. */
    private record TimedCounts(Map<String, Set<Integer>> pids, long atNanos) {
    }

    /** The GPU processes' CPU, bytes and states per interval (issue 49); null where processes are not counted. */
    private final ProcessActivity activity;

    /**
     * Starts nvidia-smi for {@code node}'s records; {@code countProcesses}: whether process counts are trusted here
     * ({@link GpuConfig#countProcesses}).
     */
    public GpuSource(GpuConfig config, String node, long intervalMs, boolean countProcesses, MeterRegistry registry) {
        this.node = node;
        this.config = config;
        this.intervalMs = intervalMs;
        this.lines = Counter.builder(LINES_METRIC).description("non-blank lines read from nvidia-smi")
                .register(registry);
        this.parseFailures = Counter.builder(PARSE_FAILURES_METRIC)
                .description("nvidia-smi lines that held no GPU reading (logged with their text)").register(registry);
        for (Restart reason : Restart.values()) {
            restarts.put(reason, Counter.builder(RESTARTS_METRIC).tag("reason", reason.tag)
                    .description("nvidia-smi restarts: exit = it ended, silent = killed after the silence timeout, "
                            + "start-failed = it could not be started").register(registry));
        }
        Gauge.builder(OFF_METRIC, this, s -> s.off ? 1 : 0)
                .description("1 when the GPU source is off because this node has no NVIDIA driver or GPU")
                .register(registry);
        this.activity = countProcesses && config.processActivity() ? new ProcessActivity(config.procRoot()) : null;
        this.processCounts = countProcesses ? new ProcessCounts(config.command("--query-compute-apps="
                + NvidiaSmiCsv.APPS_FIELDS, "--format=" + NvidiaSmiCsv.FORMAT), config.processesTimeout(), registry)
                : null;
        this.counter = countProcesses ? Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "gpu-processes");
            t.setDaemon(true);
            return t;
        }) : null;
        List<String> command = config.command("--query-gpu=" + NvidiaSmiCsv.GPU_FIELDS,
                "--format=" + NvidiaSmiCsv.FORMAT, "-lms", Long.toString(config.readInterval().toMillis()));
        this.stream = new SupervisedProcess(new SupervisedProcess.Settings("nvidia-smi", command,
                config.silenceTimeout(), config.backoffInitial(), config.backoffMax(), config.backoffMax(),
                "Set " + GpuConfig.COMMAND_CONFIG + " to its path, or " + GpuConfig.ENABLED_CONFIG + "=false"),
                new Output(), log, new LogLimiter(Duration.ofMinutes(10)));
        log.info("GPU source: {}; process counts {}", String.join(" ", command), countProcesses ? "on"
                : "off (processes null: see " + GpuConfig.PROCESSES_CONFIG + ")");
        stream.start();
    }

    /** Whether this process sees the host's processes ({@link ProcessCounts#seesHostProcesses}). */
    public static boolean seesHostProcesses() {
        return ProcessCounts.seesHostProcesses(Path.of("/proc/self/status"));
    }

    /**
     * One record per GPU read since the last call, stamped {@code wallMs}: the mean of its readings, with the latest
     * process count when it is fresh (at most three intervals old). Never blocks; also the watchdog of a silent
     * nvidia-smi.
     */
    public List<GpuSample> sample(long wallMs) {
        long now = System.nanoTime();
        stream.killIfSilent(now);
        startCountingOnce();
        List<GpuReading> means = averages.take();
        if (means.isEmpty()) {
            return List.of();
        }
        TimedCounts counts = latestCounts;
        Map<String, Set<Integer>> pids = counts != null && now - counts.atNanos() <= TimeUnit.MILLISECONDS.toNanos(
                3 * intervalMs) ? counts.pids() : null;
        // the processes' activity since the previous pass, read here on the sampling thread: a few /proc files each
        Map<String, ProcessActivity.Activity> active = activity != null && pids != null
                ? activity.sample(pids, now) : Map.of();
        List<GpuSample> out = new ArrayList<>(means.size());
        for (GpuReading r : means) {
            GpuSample s = new GpuSample(GpuSample.VERSION, node, r.index(), r.uuid(), wallMs, intervalMs,
                    r.utilizationPercent(), r.memoryUtilizationPercent(), r.powerWatts(), r.smClockMHz(),
                    pids == null ? null : pids.getOrDefault(r.uuid(), Set.of()).size());
            ProcessActivity.Activity a = active.get(r.uuid());
            out.add(a == null ? s : s.withProcessActivity(a.cpuCores(), a.readBytesPerSec(), a.writeBytesPerSec(),
                    a.states()));
        }
        uuids = out.stream().map(GpuSample::uuid).sorted().toList();
        return out;
    }

    /** The uuids of the GPUs of the last sample that had any (in pod mode: the pod's own GPUs). */
    public List<String> uuids() {
        return uuids;
    }

    /** True once nvidia-smi showed there is no driver or GPU here (auto mode): nothing is read any more. */
    public boolean isOff() {
        return off;
    }

    /** Counting starts with the first reading: without a GPU it would only run a failing nvidia-smi every interval. */
    private void startCountingOnce() {
        if (counter != null && everRead && !off && !countingStarted) {
            countingStarted = true;
            counter.scheduleWithFixedDelay(this::countProcesses, 0, intervalMs, TimeUnit.MILLISECONDS);
        }
    }

    private void countProcesses() {
        try {
            Optional<Map<String, Set<Integer>>> counts = processCounts.count();
            counts.ifPresent(c -> latestCounts = new TimedCounts(Map.copyOf(c), System.nanoTime()));
        } catch (RuntimeException e) {
            log.error("GPU process count failed unexpectedly; the next one follows: {}", e.toString(), e);
        }
    }

    private void turnOff(String why) {
        off = true;
        log.info("GPU source off: {} (no NVIDIA driver or GPU on this node?); RDMA and host samples go on. Set {} "
                + "to its path, or {}=true to keep retrying", why, GpuConfig.COMMAND_CONFIG, GpuConfig.ENABLED_CONFIG);
    }

    /** nvidia-smi's lines and lifecycle. */
    private final class Output implements SupervisedProcess.Output {
        @Override
        public void line(String text, long nanos) {
            lines.increment();
            Optional<GpuReading> reading = NvidiaSmiCsv.reading(text);
            if (reading.isPresent()) {
                everRead = true;
                averages.add(reading.get());
                return;
            }
            if (!everRead && NvidiaSmiCsv.saysNoDriver(text)) {
                // said once when the run ends: either the source turns off, or the restart's log line says why
                noDriverLine = text;
                return;
            }
            parseFailures.increment();
            long suppressed = lineLog.admit("line");
            if (suppressed != LogLimiter.SUPPRESS) {
                log.warn("nvidia-smi: no GPU reading in line '{}'{}", SupervisedProcess.printable(text),
                        LogLimiter.suffix(suppressed));
            }
        }

        @Override
        public void restarting(Restart reason) {
            restarts.get(reason).increment();
        }

        @Override
        public boolean retryStart(IOException e) {
            if (config.offWithoutDriver() && !everRead) {
                turnOff("cannot start " + config.executable() + ": " + e.getMessage());
                return false;
            }
            return true;
        }

        @Override
        public boolean restartAfter(Integer exitCode) {
            String said = noDriverLine;
            noDriverLine = null;
            if (said == null) {
                return true;
            }
            if (config.offWithoutDriver()) {
                turnOff("nvidia-smi exited (code " + exitCode + ") saying '" + SupervisedProcess.printable(said)
                        + "'");
                return false;
            }
            long suppressed = lineLog.admit("no-driver");
            if (suppressed != LogLimiter.SUPPRESS) {
                log.warn("nvidia-smi: '{}'; retrying ({}=true){}", SupervisedProcess.printable(said),
                        GpuConfig.ENABLED_CONFIG, LogLimiter.suffix(suppressed));
            }
            return true;
        }
    }

    /** Kills nvidia-smi and stops counting processes. */
    @Override
    public void close() {
        stream.stop();
        if (counter != null) {
            counter.shutdownNow();
        }
        try {
            if (!stream.join(JOIN_TIMEOUT)) {
                log.warn("nvidia-smi: its supervising thread did not end within {} ms", JOIN_TIMEOUT.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
