package io.rdmamon.collector.process;

import io.rdmamon.support.LogLimiter;
import org.slf4j.Logger;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One long-running tool that prints a line per reading ({@code eadm stat -l}, {@code nvidia-smi -lms}), kept running:
 * its own thread starts the process, hands each non-blank output line to an {@link Output}, and restarts it with
 * {@link RestartBackoff} when it exits, cannot start, or is killed by {@link #killIfSilent} for printing nothing too
 * long. stderr is merged into stdout so that the tool's error messages reach the owner (and its log) with the rest.
 * Nothing the tool does escapes this class: it becomes a (rate-limited) log line and a restart counted by reason.
 */
public final class SupervisedProcess {
    /** Longer "lines" are cut: output without newlines must not grow the buffer without bound. */
    private static final int MAX_LINE_CHARS = 4096;
    private static final int MAX_LOGGED_CHARS = 200;
    private static final Duration EXIT_GRACE = Duration.ofSeconds(1);

    /** What to run and how to restart it. {@code name} starts every log line, e.g. {@code eadm erdma_0}. */
    public record Settings(String name, List<String> command, Duration silenceTimeout, Duration backoffInitial,
                           Duration backoffMax, Duration stableRun, String startHint) {
    }

    /** Why a run ended, as counted by the owner. */
    public enum Restart {
        EXIT("exit"), SILENT("silent"), START_FAILED("start-failed");

        public final String tag;

        Restart(String tag) {
            this.tag = tag;
        }
    }

    /** The owner: reads the lines and decides whether a failed start or an ended run is worth a restart. */
    public interface Output {
        /** One non-blank line, read at {@code nanos} ({@link System#nanoTime()}). */
        void line(String text, long nanos);

        /**
         * The output ended inside a line (no newline after it): what a killed tool leaves, often half a reading.
         * Handed to {@link #line} unless the owner decides otherwise.
         */
        default void cutOff(String text, long nanos) {
            line(text, nanos);
        }

        /** Counted restart; the next start follows after the backoff. */
        void restarting(Restart reason);

        /** The executable could not be started; false stops supervising (the owner logs why). */
        default boolean retryStart(IOException e) {
            return true;
        }

        /** A run ended by itself (not killed for silence); false stops supervising (the owner logs why). */
        default boolean restartAfter(Integer exitCode) {
            return true;
        }
    }

    private final Settings settings;
    private final Output output;
    private final Logger log;
    private final long silenceNanos;
    private final RestartBackoff backoff;
    private final LogLimiter lifecycleLog;
    private final Thread thread;
    private final Object lock = new Object();

    private volatile boolean stopped;
    private volatile Process process;
    private volatile long lastOutputNanos;
    private volatile boolean killedForSilence;

    /** {@code log}: the owner's logger, so that an operator finds the tool's troubles under the owner's name. */
    public SupervisedProcess(Settings settings, Output output, Logger log, LogLimiter lifecycleLog) {
        this.settings = settings;
        this.output = output;
        this.log = log;
        this.silenceNanos = settings.silenceTimeout().toNanos();
        this.backoff = new RestartBackoff(settings.backoffInitial(), settings.backoffMax(), settings.stableRun());
        this.lifecycleLog = lifecycleLog;
        this.thread = new Thread(this::superviseLoop, settings.name().replace(' ', '-'));
        this.thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    public String name() {
        return settings.name();
    }

    public boolean isAlive() {
        return thread.isAlive();
    }

    /**
     * Kills a process that printed nothing for the silence timeout (called by a watchdog or the sampling loop); true
     * when it did so now. The supervising thread reaps it and starts the next once it has exited: one stuck in the
     * kernel, where SIGKILL waits too, stays the one running until it ends.
     */
    public boolean killIfSilent(long nowNanos) {
        Process p = process;
        if (p == null || killedForSilence || nowNanos - lastOutputNanos <= silenceNanos) {
            return false;
        }
        killedForSilence = true;
        long suppressed = lifecycleLog.admit(settings.name() + "/silent");
        if (suppressed != LogLimiter.SUPPRESS) {
            log.warn("{}: no output for {} ms, killing pid {} and its children{}", settings.name(),
                    TimeUnit.NANOSECONDS.toMillis(silenceNanos), p.pid(), LogLimiter.suffix(suppressed));
        }
        killTree(p);
        return true;
    }

    /** Stops restarting and kills the running process; {@link #join} waits for the thread. */
    public void stop() {
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

    public boolean join(Duration timeout) throws InterruptedException {
        thread.join(timeout.toMillis());
        return !thread.isAlive();
    }

    private void superviseLoop() {
        while (!stopped) {
            long startedAt = System.nanoTime();
            Process p = startProcess();
            if (p == null) {
                if (!stopped) {
                    output.restarting(Restart.START_FAILED);
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
            if (!killedForSilence && !output.restartAfter(exitCode)) {
                stopped = true;
                return;
            }
            long delayMs = backoff.delayMsAfter(runNanos);
            logEnd(p, exitCode, runNanos, delayMs);
            output.restarting(killedForSilence ? Restart.SILENT : Restart.EXIT);
            sleep(delayMs);
        }
    }

    private Process startProcess() {
        List<String> command = settings.command();
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        // the tools print decimals; a localised "914,89" would not parse
        builder.environment().put("LC_ALL", "C");
        synchronized (lock) {
            if (stopped) {
                return null;
            }
            Process p;
            try {
                p = builder.start();
            } catch (IOException e) {
                if (!output.retryStart(e)) {
                    stopped = true;
                    return null;
                }
                long suppressed = lifecycleLog.admit("start-failed/" + command.get(0));
                if (suppressed != LogLimiter.SUPPRESS) {
                    log.warn("{}: cannot start {}: {}. {}; retrying with backoff up to the restart maximum{}",
                            settings.name(), command, e.getMessage(), settings.startHint(),
                            LogLimiter.suffix(suppressed));
                }
                return null;
            }
            killedForSilence = false;
            lastOutputNanos = System.nanoTime();
            process = p;
            closeStdin(p);
            log.debug("{}: started pid {}: {}", settings.name(), p.pid(), command);
            return p;
        }
    }

    /** The tools read nothing: an open, never-written stdin would only keep a reading tool waiting. */
    private void closeStdin(Process p) {
        try {
            p.getOutputStream().close();
        } catch (IOException e) {
            log.debug("{}: cannot close stdin of pid {}: {}", settings.name(), p.pid(), e.getMessage());
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
                lastOutputNanos = System.nanoTime();
                if (!line.toString().isBlank()) {
                    output.cutOff(line.toString(), lastOutputNanos);
                }
            }
        } catch (IOException e) {
            // the stream closes under us when the process is killed
            log.debug("{}: output ended: {}", settings.name(), e.getMessage());
        }
    }

    private void onLine(String text) {
        long now = System.nanoTime();
        lastOutputNanos = now;
        if (!text.isBlank()) {
            output.line(text, now);
        }
    }

    /** Waits for the process after its output ended; kills it (and its children) if it lingers. */
    private Integer reap(Process p) {
        try {
            if (!p.waitFor(EXIT_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                killTree(p);
                if (!p.waitFor(EXIT_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                    log.warn("{}: pid {} survives SIGKILL (stuck in the kernel?)", settings.name(), p.pid());
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
        long suppressed = lifecycleLog.admit(settings.name() + "/end");
        if (suppressed != LogLimiter.SUPPRESS) {
            log.warn("{}: pid {} {} after {} ms (exit code {}); restarting in {} ms{}", settings.name(), p.pid(),
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
    public static void killTree(Process p) {
        List<ProcessHandle> descendants = p.descendants().toList();
        p.destroyForcibly();
        descendants.forEach(ProcessHandle::destroyForcibly);
    }

    /** The line as it can safely go into a log: control characters escaped, length capped. */
    public static String printable(String text) {
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
