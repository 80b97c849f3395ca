package io.rdmamon.collector.gpu;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.collector.process.SupervisedProcess;
import io.rdmamon.collector.process.SupervisedProcess.Restart;
import io.rdmamon.support.LogLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Reads the GPUs with nvidia-smi, where NVML cannot be loaded into the collector: one supervised {@code nvidia-smi
 * --query-gpu=... -lms <read interval>} that prints a line per GPU per reading, and a process count per interval
 * ({@link ProcessCounts}).
 *
 * <p>An nvidia-smi that prints nothing for the silence timeout is killed ({@link SupervisedProcess#killIfSilent}),
 * reported as stuck ({@value StuckCall#METRIC}{@code {part="reader"}}) and started again once it has exited and been
 * reaped; one stuck in the kernel, where even SIGKILL waits, is the one outstanding stream until it ends. No
 * nvidia-smi, or one that finds no driver or GPU, is retried with backoff: a driver that appears later is picked up.
 */
final class NvidiaSmiReader implements GpuReader {
    static final String LINES_METRIC = "rdmamon.gpu.lines";
    static final String PARSE_FAILURES_METRIC = "rdmamon.gpu.parse.failures";
    static final String RESTARTS_METRIC = "rdmamon.gpu.restarts";

    private static final Logger log = LoggerFactory.getLogger(GpuSource.class);
    private static final long JOIN_MS = 5_000;
    /** How long before the next pass a count starts: nvidia-smi takes tens of ms to start and read the GPUs. */
    private static final long COUNT_LEAD_MS = 500;

    private final GpuConfig config;
    private final long intervalMs;
    private final GpuAverages averages = new GpuAverages();
    private final ProcessCounts processCounts;
    private final ScheduledExecutorService counter;
    private final SupervisedProcess stream;
    private final List<String> command;
    private final Counter lines;
    private final Counter parseFailures;
    private final Counter stuckStreams;
    private final Map<Restart, Counter> restarts = new EnumMap<>(Restart.class);
    private final LogLimiter logLimiter;

    private volatile boolean everRead;
    private volatile boolean noDriver;
    private volatile boolean streamStuck;
    private volatile GpuProcesses processes;
    private final AtomicBoolean countPending = new AtomicBoolean();

    NvidiaSmiReader(GpuConfig config, long intervalMs, boolean countProcesses, MeterRegistry registry,
                    LogLimiter logLimiter) {
        this.config = config;
        this.intervalMs = intervalMs;
        this.logLimiter = logLimiter;
        this.lines = Counter.builder(LINES_METRIC).description("non-blank lines read from nvidia-smi")
                .register(registry);
        this.parseFailures = Counter.builder(PARSE_FAILURES_METRIC)
                .description("nvidia-smi lines that held no GPU reading (logged with their text)").register(registry);
        this.stuckStreams = Counter.builder(StuckCall.METRIC).tag("part", "reader").register(registry);
        for (Restart reason : Restart.values()) {
            restarts.put(reason, Counter.builder(RESTARTS_METRIC).tag("reason", reason.tag)
                    .description("nvidia-smi restarts: exit = it ended, silent = killed after the silence timeout, "
                            + "start-failed = it could not be started").register(registry));
        }
        this.processCounts = countProcesses ? new ProcessCounts(config.command("--query-compute-apps="
                + NvidiaSmiCsv.APPS_FIELDS, "--format=" + NvidiaSmiCsv.FORMAT), config.processesTimeout(),
                config.silenceTimeout(), registry) : null;
        this.counter = countProcesses ? Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "gpu-processes");
            t.setDaemon(true);
            return t;
        }) : null;
        this.command = config.command("--query-gpu=" + NvidiaSmiCsv.GPU_FIELDS, "--format=" + NvidiaSmiCsv.FORMAT,
                "-lms", Long.toString(config.readInterval().toMillis()));
        this.stream = new SupervisedProcess(new SupervisedProcess.Settings("nvidia-smi", command,
                config.silenceTimeout(), config.backoffInitial(), config.backoffMax(), config.backoffMax(),
                "Set " + GpuConfig.COMMAND_CONFIG + " to its path, or " + GpuConfig.ENABLED_CONFIG + "=false"),
                new Output(), log, new LogLimiter(java.time.Duration.ofMinutes(10)));
        stream.start();
    }

    @Override
    public List<GpuReading> take(long nowNanos) {
        if (stream.killIfSilent(nowNanos)) {
            streamStuck = true;
            stuckStreams.increment();
        }
        scheduleCount();
        if (processCounts != null) {
            processCounts.checkStuck(nowNanos);
        }
        List<GpuReading> means = averages.take();
        return streamStuck ? List.of() : means;
    }

    @Override
    public GpuProcesses processes() {
        return processes;
    }

    @Override
    public boolean noDriver() {
        return noDriver;
    }

    @Override
    public boolean stuck() {
        return streamStuck || processCounts != null && processCounts.stuck();
    }

    @Override
    public String describe() {
        return String.join(" ", command) + (processCounts == null ? "" : "; processes: one nvidia-smi "
                + "--query-compute-apps per interval");
    }

    /**
     * One count per interval, started half an interval (at most {@value #COUNT_LEAD_MS} ms) before the next pass, so
     * that its result is of the interval's end; none while one is pending (a count that hangs delays the next, never
     * piles them up). Counting starts with the first reading: without a GPU it would only run a failing nvidia-smi.
     */
    private void scheduleCount() {
        if (counter != null && everRead && countPending.compareAndSet(false, true)) {
            long lead = Math.min(COUNT_LEAD_MS, intervalMs / 2);
            counter.schedule(this::countProcesses, intervalMs - lead, TimeUnit.MILLISECONDS);
        }
    }

    private void countProcesses() {
        try {
            processCounts.count().ifPresent(pids -> processes = new GpuProcesses(pids, true, System.nanoTime()));
        } catch (RuntimeException e) {
            log.error("GPU process count failed unexpectedly; the next one follows: {}", e.toString(), e);
        } finally {
            countPending.set(false);
        }
    }

    /** nvidia-smi's lines and lifecycle. */
    private final class Output implements SupervisedProcess.Output {
        @Override
        public void line(String text, long nanos) {
            lines.increment();
            var reading = NvidiaSmiCsv.reading(text);
            if (reading.isPresent()) {
                everRead = true;
                noDriver = false;
                streamStuck = false;
                averages.add(reading.get());
                return;
            }
            if (NvidiaSmiCsv.saysNoDriver(text)) {
                noDriver = true;
                long suppressed = logLimiter.admit("nvidia-smi/no-driver");
                if (suppressed != LogLimiter.SUPPRESS) {
                    log.info("GPU source: nvidia-smi says '{}' (no NVIDIA driver or GPU on this node yet?); retrying "
                            + "with backoff up to {} ms{}", SupervisedProcess.printable(text),
                            config.backoffMax().toMillis(), LogLimiter.suffix(suppressed));
                }
                return;
            }
            parseFailures.increment();
            long suppressed = logLimiter.admit("nvidia-smi/line");
            if (suppressed != LogLimiter.SUPPRESS) {
                log.warn("nvidia-smi: no GPU reading in line '{}'{}", SupervisedProcess.printable(text),
                        LogLimiter.suffix(suppressed));
            }
        }

        /** The end of a killed nvidia-smi's output: part of a line, never a reading (an SM clock of 19 MHz). */
        @Override
        public void cutOff(String text, long nanos) {
            parseFailures.increment();
            long suppressed = logLimiter.admit("nvidia-smi/cut-off");
            if (suppressed != LogLimiter.SUPPRESS) {
                log.info("nvidia-smi: its output ended inside a line, not read: '{}'{}",
                        SupervisedProcess.printable(text), LogLimiter.suffix(suppressed));
            }
        }

        @Override
        public void restarting(Restart reason) {
            restarts.get(reason).increment();
        }

        @Override
        public boolean retryStart(IOException e) {
            noDriver = true;
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
            if (!stream.join(java.time.Duration.ofMillis(JOIN_MS))) {
                log.warn("nvidia-smi: its supervising thread did not end within {} ms", JOIN_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
