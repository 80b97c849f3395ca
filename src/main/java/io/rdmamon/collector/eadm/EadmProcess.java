package io.rdmamon.collector.eadm;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.collector.EadmRate;
import io.rdmamon.support.LogLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One supervised {@code eadm stat -l} for one device: its own thread starts the process, reads its output line by
 * line, and restarts it with {@link RestartBackoff} when it exits, cannot start, or is killed by {@link
 * #killIfSilent} for printing nothing too long. stderr is merged into stdout so that eadm's error messages are
 * logged (as unparseable lines) with the device they concern.
 */
final class EadmProcess {
    private static final Logger log = LoggerFactory.getLogger(EadmProcess.class);
    /** Longer "lines" are cut: output without newlines must not grow the buffer without bound. */
    private static final int MAX_LINE_CHARS = 4096;
    private static final int MAX_LOGGED_CHARS = 200;
    private static final Duration EXIT_GRACE = Duration.ofSeconds(1);

    private final String device;
    private final List<String> command;
    private final long silenceNanos;
    private final RestartBackoff backoff;
    private final LogLimiter lineLog;
    private final LogLimiter lifecycleLog;
    private final Counter lines;
    private final Counter parseFailures;
    private final Counter exitRestarts;
    private final Counter silentRestarts;
    private final Counter startFailedRestarts;
    private final Thread thread;
    private final Object lock = new Object();

    private volatile boolean stopped;
    private volatile Process process;
    private volatile long lastOutputNanos;
    private volatile boolean killedForSilence;
    private volatile EadmRate latest;

    EadmProcess(String device, EadmConfig config, MeterRegistry registry, LogLimiter lineLog, LogLimiter lifecycleLog) {
        this.device = device;
        this.command = config.commandFor(device);
        this.silenceNanos = config.silenceTimeout().toNanos();
        this.backoff = new RestartBackoff(config.backoffInitial(), config.backoffMax(), config.stableRun());
        this.lineLog = lineLog;
        this.lifecycleLog = lifecycleLog;
        this.lines = Counter.builder(EadmSupervisor.LINES_METRIC).tag("device", device)
                .description("non-blank lines read from eadm").register(registry);
        this.parseFailures = Counter.builder(EadmSupervisor.PARSE_FAILURES_METRIC).tag("device", device)
                .description("eadm lines that held no rate").register(registry);
        this.exitRestarts = restarts(registry, "exit");
        this.silentRestarts = restarts(registry, "silent");
        this.startFailedRestarts = restarts(registry, "start-failed");
        this.thread = new Thread(this::superviseLoop, "eadm-" + device);
        this.thread.setDaemon(true);
    }

    private Counter restarts(MeterRegistry registry, String reason) {
        return Counter.builder(EadmSupervisor.RESTARTS_METRIC).tag("device", device).tag("reason", reason)
                .description("eadm restarts: exit = it ended, silent = killed after the silence timeout, "
                        + "start-failed = it could not be started").register(registry);
    }

    void start() {
        thread.start();
    }

    String device() {
        return device;
    }

    boolean isAlive() {
        return thread.isAlive();
    }

    /** The last rate read, however old; {@code null} before the first. */
    EadmRate latest() {
        return latest;
    }

    /** Called by the supervisor's watchdog: kills a process that printed nothing for the silence timeout. */
    void killIfSilent(long nowNanos) {
        Process p = process;
        if (p == null || killedForSilence || nowNanos - lastOutputNanos <= silenceNanos) {
            return;
        }
        killedForSilence = true;
        long suppressed = lifecycleLog.admit(device + "/silent");
        if (suppressed != LogLimiter.SUPPRESS) {
            log.warn("eadm {}: no output for {} ms, killing pid {} and its children{}", device,
                    TimeUnit.NANOSECONDS.toMillis(silenceNanos), p.pid(), LogLimiter.suffix(suppressed));
        }
        killTree(p);
    }

    /** Stops restarting and kills the running process; {@link #join} waits for the thread. */
    void stop() {
        Process p;
        synchronized (lock) {
            stopped = true;
            p = process;
        }
        if (p != null) {
            killTree(p);
        }
        thread.interrupt();
    }

    boolean join(Duration timeout) throws InterruptedException {
        thread.join(timeout.toMillis());
        return !thread.isAlive();
    }

    private void superviseLoop() {
        while (!stopped) {
            long startedAt = System.nanoTime();
            Process p = startProcess();
            if (p == null) {
                if (!stopped) {
                    startFailedRestarts.increment();
                    sleep(backoff.delayMsAfter(0));
                }
                continue;
            }
            readLines(p);
            Integer exitCode = reap(p);
            long runNanos = System.nanoTime() - startedAt;
            process = null;
            if (stopped) {
                return;
            }
            long delayMs = backoff.delayMsAfter(runNanos);
            logEnd(p, exitCode, runNanos, delayMs);
            (killedForSilence ? silentRestarts : exitRestarts).increment();
            sleep(delayMs);
        }
    }

    private Process startProcess() {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        // eadm prints decimals; a localised "914,89" would not parse
        builder.environment().put("LC_ALL", "C");
        synchronized (lock) {
            if (stopped) {
                return null;
            }
            Process p;
            try {
                p = builder.start();
            } catch (IOException e) {
                long suppressed = lifecycleLog.admit("start-failed/" + command.get(0));
                if (suppressed != LogLimiter.SUPPRESS) {
                    log.warn("eadm {}: cannot start {}: {}. Is the eRDMA tool installed? Set eadm.command to its "
                                    + "path, or eadm.enabled=false; retrying with backoff up to the restart maximum{}",
                            device, command, e.getMessage(), LogLimiter.suffix(suppressed));
                }
                return null;
            }
            killedForSilence = false;
            lastOutputNanos = System.nanoTime();
            process = p;
            closeStdin(p);
            log.debug("eadm {}: started pid {}: {}", device, p.pid(), command);
            return p;
        }
    }

    /** eadm reads nothing: an open, never-written stdin would only keep a reading tool waiting. */
    private void closeStdin(Process p) {
        try {
            p.getOutputStream().close();
        } catch (IOException e) {
            log.debug("eadm {}: cannot close stdin of pid {}: {}", device, p.pid(), e.getMessage());
        }
    }

    private void readLines(Process p) {
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = reader.read()) >= 0) {
                if (c == '\n' || c == '\r' || line.length() >= MAX_LINE_CHARS) {
                    onLine(line.toString());
                    line.setLength(0);
                    if (c == '\n' || c == '\r') {
                        continue;
                    }
                }
                line.append((char) c);
            }
            if (!line.isEmpty()) {
                onLine(line.toString());
            }
        } catch (IOException e) {
            // the stream closes under us when the process is killed
            log.debug("eadm {}: output ended: {}", device, e.getMessage());
        }
    }

    private void onLine(String text) {
        long now = System.nanoTime();
        lastOutputNanos = now;
        if (text.isBlank()) {
            return;
        }
        lines.increment();
        EadmLineParser.parse(device, text, now).ifPresentOrElse(rate -> latest = rate, () -> {
            parseFailures.increment();
            long suppressed = lineLog.admit(device);
            if (suppressed != LogLimiter.SUPPRESS) {
                log.warn("eadm {}: no rate in line '{}'{}", device, printable(text), LogLimiter.suffix(suppressed));
            }
        });
    }

    /** Waits for the process after its output ended; kills it (and its children) if it lingers. */
    private Integer reap(Process p) {
        try {
            if (!p.waitFor(EXIT_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                killTree(p);
                if (!p.waitFor(EXIT_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                    log.warn("eadm {}: pid {} survives SIGKILL (stuck in the kernel?)", device, p.pid());
                    return null;
                }
            }
            return p.exitValue();
        } catch (InterruptedException e) {
            killTree(p);
            return null;
        }
    }

    private void logEnd(Process p, Integer exitCode, long runNanos, long delayMs) {
        long suppressed = lifecycleLog.admit(device + "/end");
        if (suppressed != LogLimiter.SUPPRESS) {
            log.warn("eadm {}: pid {} {} after {} ms (exit code {}); restarting in {} ms{}", device, p.pid(),
                    killedForSilence ? "killed for silence" : "exited", TimeUnit.NANOSECONDS.toMillis(runNanos),
                    exitCode == null ? "unknown" : exitCode, delayMs, LogLimiter.suffix(suppressed));
        }
    }

    private void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            // stop() interrupts: the loop re-checks `stopped`
        }
    }

    /** Kills the process and every descendant found now: a child holding the output pipe would block the reader. */
    static void killTree(Process p) {
        List<ProcessHandle> descendants = p.descendants().toList();
        p.destroyForcibly();
        descendants.forEach(ProcessHandle::destroyForcibly);
    }

    /** The line as it can safely go into a log: control characters escaped, length capped. */
    static String printable(String text) {
        int end = Math.min(text.length(), MAX_LOGGED_CHARS);
        StringBuilder out = new StringBuilder(end + 3);
        for (int i = 0; i < end; i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return end < text.length() ? out.append("...").toString() : out.toString();
    }
}
