package io.rdmamon.collector.gpu;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.model.GpuSample;
import io.rdmamon.support.LogLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The node's (in pod mode: the pod's) GPUs: one {@link GpuSample} per GPU per collector interval, the mean of the
 * readings taken within it ({@link GpuAverages}), with the compute processes counted at the interval's end. What
 * reads them is a {@link GpuReader}: NVML in this process ({@link NvmlReader}, {@code collector.gpu.reader=auto} or
 * {@code nvml}), or nvidia-smi ({@link NvidiaSmiReader}) where NVML's library cannot be loaded.
 *
 * <p>Nothing the driver does stops the other sources: {@link #sample} never blocks, no driver is retried with backoff
 * ({@value #OFF_METRIC} = 1 meanwhile), and a driver call that hangs stops this node's GPU samples ({@value
 * #STUCK_METRIC} = 1), so that the GPU rules give no verdict on stale readings, until it returns.
 */
public final class GpuSource implements AutoCloseable {
    public static final String LINES_METRIC = NvidiaSmiReader.LINES_METRIC;
    public static final String PARSE_FAILURES_METRIC = NvidiaSmiReader.PARSE_FAILURES_METRIC;
    public static final String RESTARTS_METRIC = NvidiaSmiReader.RESTARTS_METRIC;
    public static final String STUCK_CALLS_METRIC = StuckCall.METRIC;
    public static final String OFF_METRIC = "rdmamon.gpu.off";
    public static final String STUCK_METRIC = "rdmamon.gpu.stuck";

    private static final Logger log = LoggerFactory.getLogger(GpuSource.class);
    private static final long NEVER = Long.MIN_VALUE;

    private final String node;
    private final LogLimiter logLimiter = new LogLimiter(Duration.ofMinutes(10));
    private final GpuReader reader;

    private long lastPassNanos = NEVER;
    private Set<Integer> sampledLastPass = Set.of();
    private volatile List<String> uuids = List.of();
    private volatile GpuProcesses published;
    /** What the GPUs' compute processes did over each interval; null where processes are not counted or it is off. */
    private final ProcessActivity activity;

    /**
     * Starts reading the GPUs for {@code node}'s records; {@code countProcesses}: whether process counts are trusted
     * here ({@link GpuConfig#countProcesses}).
     */
    public GpuSource(GpuConfig config, String node, long intervalMs, boolean countProcesses, MeterRegistry registry) {
        this(config, node, intervalMs, countProcesses, registry, new JnaNvml(config.nvmlLibrary()));
    }

    /** As above, with {@code nvml} standing in for the driver's library (tests). */
    GpuSource(GpuConfig config, String node, long intervalMs, boolean countProcesses, MeterRegistry registry,
              Nvml nvml) {
        this.node = node;
        this.activity = countProcesses && config.processActivity() ? new ProcessActivity(config.procRoot()) : null;
        Gauge.builder(OFF_METRIC, this, s -> s.reader.noDriver() ? 1 : 0)
                .description("1 while no NVIDIA driver or GPU is found here (looked for again with backoff)")
                .register(registry);
        Gauge.builder(STUCK_METRIC, this, s -> s.reader.stuck() ? 1 : 0)
                .description("1 while a GPU driver call, nvidia-smi or process count has not returned for "
                        + "collector.gpu.silence.timeout.ms: this node's GPU samples stop").register(registry);
        // auto decides before the first pass: loading the library does not call the driver, so it cannot hang
        String unloadable = GpuConfig.AUTO.equals(config.reader()) ? nvml.load() : null;
        if (unloadable != null) {
            log.info("GPU source: {}; reading with nvidia-smi instead ({}=auto)", unloadable,
                    GpuConfig.READER_CONFIG);
        }
        reader = GpuConfig.NVIDIA_SMI.equals(config.reader()) || unloadable != null
                ? new NvidiaSmiReader(config, intervalMs, countProcesses, registry, logLimiter)
                : new NvmlReader(nvml, config, intervalMs, countProcesses, registry, logLimiter);
        log.info("GPU source: {}; process counts {}", reader.describe(), countProcesses ? "on"
                : "off (processes null: see " + GpuConfig.PROCESSES_CONFIG + ")");
    }

    /** Whether this process sees the host's processes ({@link ProcessCounts#seesHostProcesses}). */
    public static boolean seesHostProcesses() {
        return ProcessCounts.seesHostProcesses(Path.of("/proc/self/status"));
    }

    /**
     * One record per GPU read since the last call, stamped {@code wallMs}: the mean of its readings, {@code
     * intervalMs} the time since the previous call (0 for a GPU that had no record then: its first, or the first
     * after a gap), {@code processes} when they were counted within this interval (null otherwise). Never blocks; also
     * the watchdog of stuck driver calls.
     */
    public List<GpuSample> sample(long wallMs) {
        long now = System.nanoTime();
        List<GpuReading> means = reader.take(now);
        long previousPass = lastPassNanos;
        lastPassNanos = now;
        GpuProcesses processes = reader.processes();
        if (processes != null && (previousPass == NEVER || processes.readAtNanos() <= previousPass)) {
            processes = null; // read in an earlier interval: not this interval's end
        }
        published = processes;
        long passMs = previousPass == NEVER ? 0 : TimeUnit.NANOSECONDS.toMillis(now - previousPass);
        // the processes' activity since the previous pass, read here on the sampling thread: a few /proc files each
        Map<String, ProcessActivity.Activity> active = activity == null || processes == null ? Map.of()
                : activity.sample(processes.pidsByUuid(), now);
        List<GpuSample> out = new ArrayList<>(means.size());
        Set<Integer> sampled = new HashSet<>();
        for (GpuReading m : means) {
            sampled.add(m.index());
            GpuSample s = new GpuSample(GpuSample.VERSION, node, m.index(), m.uuid(), wallMs,
                    sampledLastPass.contains(m.index()) ? passMs : 0, m.utilizationPercent(),
                    m.memoryUtilizationPercent(), m.powerWatts(), m.smClockMHz(),
                    processes == null ? null : processes.count(m.uuid()),
                    m.migDevices().isEmpty() ? null : m.migDevices(), m.error(), null, null, null, null);
            ProcessActivity.Activity a = active.get(m.uuid());
            out.add(a == null ? s : s.withProcessActivity(a.cpuCores(), a.readBytesPerSec(), a.writeBytesPerSec(),
                    a.states()));
        }
        sampledLastPass = sampled;
        if (!out.isEmpty()) {
            uuids = out.stream().map(GpuSample::uuid).sorted().toList();
        }
        return out;
    }

    /** The uuids of the GPUs of the last sample that had any (in pod mode: the pod's own GPUs). */
    public List<String> uuids() {
        return uuids;
    }

    /**
     * The compute processes (their pids by GPU uuid) published with the last {@link #sample}, null when that sample
     * had none: for readers of what those processes do.
     */
    public GpuProcesses processes() {
        return published;
    }

    /** What reads the GPUs now (NVML or nvidia-smi), for the log and the benchmark. */
    public String reader() {
        return reader.describe();
    }

    /** True while no NVIDIA driver or GPU is found here; it is looked for again with backoff. */
    public boolean isOff() {
        return reader.noDriver();
    }

    /** True while a driver call has not returned for the silence timeout: no GPU samples meanwhile. */
    public boolean isStuck() {
        return reader.stuck();
    }

    /** Stops reading (a driver call stuck in the kernel keeps only its own daemon thread). */
    @Override
    public void close() {
        reader.close();
    }
}
