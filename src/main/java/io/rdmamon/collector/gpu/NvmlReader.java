package io.rdmamon.collector.gpu;

import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.collector.gpu.Nvml.NvmlException;
import io.rdmamon.collector.process.RestartBackoff;
import io.rdmamon.support.LogLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Reads the GPUs through NVML in the collector's own process: one thread ({@code gpu-nvml}) reads every GPU each
 * {@code collector.gpu.read.interval.ms} into {@link GpuAverages}, and the compute processes and MIG devices once per
 * collector interval, in the interval's last readings (so that {@code processes} is the interval's end).
 *
 * <p>That one thread makes every NVML call, so at most one call is ever outstanding, whatever the driver does. A call
 * that does not return within the silence timeout is reported ({@link StuckCall}) and the GPU samples stop; when it
 * returns, NVML is closed and opened again after backoff. No library, no driver or no GPU: {@link Nvml#open} is
 * retried with backoff, so a driver loaded after the collector started (the GPU Operator's driver container after a
 * reboot) is picked up.
 */
final class NvmlReader implements GpuReader {
    private static final Logger log = LoggerFactory.getLogger(GpuSource.class);
    private static final long JOIN_MS = 2_000;

    private final Nvml nvml;
    private final long intervalNanos;
    private final long readIntervalNanos;
    private final boolean countProcesses;
    private final boolean required;
    private final GpuAverages averages = new GpuAverages();
    private final StuckCall call;
    private final RestartBackoff backoff;
    private final LogLimiter logLimiter;
    private final Thread thread;

    private volatile boolean closed;
    private volatile boolean noDriver;
    private volatile boolean unloadable;
    private volatile GpuProcesses processes;
    /** When the next process count is due: in the interval's last readings, set by {@link #take}. */
    private volatile long processesDueNanos = Long.MIN_VALUE;

    NvmlReader(Nvml nvml, GpuConfig config, long intervalMs, boolean countProcesses, MeterRegistry registry,
               LogLimiter logLimiter) {
        this.nvml = nvml;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMs);
        this.readIntervalNanos = config.readInterval().toNanos();
        this.countProcesses = countProcesses;
        this.required = config.required();
        this.logLimiter = logLimiter;
        this.call = new StuckCall("reader", config.silenceTimeout(), registry, logLimiter);
        this.backoff = new RestartBackoff(config.backoffInitial(), config.backoffMax(), config.backoffMax());
        this.thread = new Thread(this::run, "gpu-nvml");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    @Override
    public List<GpuReading> take(long nowNanos) {
        processesDueNanos = nowNanos + intervalNanos - readIntervalNanos * 3 / 2;
        List<GpuReading> means = averages.take();
        return call.check(nowNanos, "an NVML call") ? List.of() : means;
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
        return call.stuck();
    }

    @Override
    public String describe() {
        return "NVML, every GPU every " + TimeUnit.NANOSECONDS.toMillis(readIntervalNanos) + " ms"
                + (countProcesses ? ", compute processes once per interval" : "");
    }

    private void run() {
        List<String> uuids = null;
        List<List<String>> mig = new ArrayList<>();
        long openedAt = 0;
        while (!closed) {
            if (uuids == null) {
                uuids = open();
                if (uuids == null) {
                    pause(backoff.delayMsAfter(0));
                    continue;
                }
                openedAt = System.nanoTime();
                mig = new ArrayList<>(uuids.stream().map(u -> List.<String>of()).toList());
                processesDueNanos = Long.MIN_VALUE; // MIG devices and processes at once
            }
            long tick = System.nanoTime();
            call.began(tick);
            List<GpuReading> batch = new ArrayList<>(uuids.size());
            GpuProcesses counted = null;
            try {
                if (countProcesses && tick >= processesDueNanos) {
                    processesDueNanos = Long.MAX_VALUE;
                    counted = count(uuids, mig);
                }
                for (int i = 0; i < uuids.size(); i++) {
                    batch.add(nvml.read(i, uuids.get(i), mig.get(i)));
                }
            } catch (RuntimeException e) {
                // a crash inside the binding: reported as a stuck call would be, NVML opened again after backoff
                logFailure("crash", "NVML reading failed: " + e);
                call.ended();
                uuids = reopen(System.nanoTime() - openedAt);
                continue;
            }
            if (call.ended()) {
                // the readings of a call that hung are not of this interval
                averages.take();
                uuids = reopen(System.nanoTime() - openedAt);
                continue;
            }
            batch.forEach(averages::add);
            if (counted != null) {
                processes = counted;
            }
            pauseUntil(tick + readIntervalNanos);
        }
        nvml.close();
    }

    /** Opens NVML; null (logged, rate-limited) when there is no library, driver or GPU yet. */
    private List<String> open() {
        call.began(System.nanoTime());
        try {
            List<String> uuids = nvml.open();
            boolean stale = call.ended();
            if (stale) {
                nvml.close();
                return null;
            }
            if (uuids.isEmpty()) {
                nvml.close();
                throw new NvmlException(6, "NVML found no GPU");
            }
            if (noDriver || unloadable) {
                log.info("GPU source: NVML found {} GPU(s) {}", uuids.size(), uuids);
            } else {
                log.debug("GPU source: NVML found {} GPU(s) {}", uuids.size(), uuids);
            }
            noDriver = false;
            unloadable = false;
            return uuids;
        } catch (NvmlException e) {
            call.ended();
            unloadable = e.unloadable();
            noDriver = true;
            long suppressed = logLimiter.admit("nvml/open");
            if (suppressed != LogLimiter.SUPPRESS) {
                String line = "GPU source: {}; retrying with backoff (no NVIDIA driver or GPU on this node yet?){}";
                if (required) {
                    log.warn(line, e.getMessage(), LogLimiter.suffix(suppressed));
                } else {
                    log.info(line, e.getMessage(), LogLimiter.suffix(suppressed));
                }
            }
            return null;
        }
    }

    /** Closes NVML after a call that hung or crashed, and waits the backoff before it is opened again. */
    private List<String> reopen(long runNanos) {
        nvml.close();
        pause(backoff.delayMsAfter(runNanos));
        return null;
    }

    /** The pids on every GPU, and the MIG devices; a GPU whose processes cannot be read has none listed. */
    private GpuProcesses count(List<String> uuids, List<List<String>> mig) {
        Map<String, List<Long>> pids = new HashMap<>();
        for (int i = 0; i < uuids.size(); i++) {
            try {
                mig.set(i, nvml.migDevices(i));
            } catch (NvmlException e) {
                logFailure("mig", "GPU " + i + ": " + e.getMessage());
            }
            try {
                pids.put(uuids.get(i), List.copyOf(nvml.processes(i)));
            } catch (NvmlException e) {
                logFailure("processes", "GPU " + i + " processes: " + e.getMessage());
            }
        }
        return new GpuProcesses(pids, false, System.nanoTime());
    }

    private void logFailure(String key, String message) {
        long suppressed = logLimiter.admit("nvml/" + key);
        if (suppressed != LogLimiter.SUPPRESS) {
            log.warn("GPU source: {}{}", message, LogLimiter.suffix(suppressed));
        }
    }

    private void pause(long millis) {
        pauseUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis));
    }

    private void pauseUntil(long deadlineNanos) {
        long left;
        while (!closed && (left = deadlineNanos - System.nanoTime()) > 0) {
            LockSupport.parkNanos(this, left);
        }
    }

    /**
     * Stops reading. The thread closes NVML itself once its call returned: NVML is never shut down under a call, and a
     * call stuck in the kernel keeps only its own daemon thread.
     */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
        try {
            thread.join(JOIN_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
