package io.rdmamon.collector.gpu;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.support.LogLimiter;
import io.rdmamon.collector.process.SupervisedProcess;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Counts the compute processes on each GPU with one {@code nvidia-smi --query-compute-apps} run. A run per count, not
 * a stream: with no process a streaming query prints nothing at all, which cannot be told from a hung one. A run that
 * fails, hangs past its deadline or prints anything but {@code <uuid>, <pid>} lines gives no count (processes null),
 * is logged (rate-limited) and counted by reason in {@value #FAILURES_METRIC}.
 */
final class ProcessCounts {
    static final String FAILURES_METRIC = "rdmamon.gpu.processes.failures";

    private static final Logger log = LoggerFactory.getLogger(ProcessCounts.class);
    /** The output is read after the run: a pipe holds 64 KiB, over a thousand processes' lines. */
    private static final int MAX_OUTPUT_BYTES = 64 * 1024;

    private final List<String> command;
    private final Duration timeout;
    private final MeterRegistry registry;
    private final LogLimiter logLimiter = new LogLimiter(Duration.ofMinutes(10));
    private final StuckCall call;
    /** A run killed at its deadline that has not exited yet (stuck in the kernel): no other starts meanwhile. */
    private Process killed;

    ProcessCounts(List<String> command, Duration timeout, Duration stuckAfter, MeterRegistry registry) {
        this.command = command;
        this.timeout = timeout;
        this.registry = registry;
        this.call = new StuckCall("count", stuckAfter, registry, logLimiter);
        for (String reason : List.of("start-failed", "timeout", "exit", "unparseable", "stuck")) {
            failures(reason);
        }
    }

    private Counter failures(String reason) {
        return Counter.builder(FAILURES_METRIC).tag("reason", reason)
                .description("process counts that gave no count: start-failed, timeout (killed), exit (non-zero "
                        + "exit code), unparseable (output not <uuid>, <pid> lines), stuck (the last run killed has "
                        + "not exited: none started)").register(registry);
    }

    /**
     * The pids of the compute processes per GPU uuid (a GPU without any is absent), or empty when the run gave no
     * trustworthy count. At most one run is outstanding: while one killed at its deadline has not exited, none starts.
     */
    Optional<Map<String, List<Long>>> count() {
        if (killed != null) {
            if (killed.isAlive()) {
                return failed("stuck", "pid " + killed.pid() + ", killed after " + timeout.toMillis() + " ms, has "
                        + "not exited");
            }
            killed = null;
            call.ended();
        }
        call.began(System.nanoTime());
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            call.ended();
            return failed("start-failed", "cannot start " + command + ": " + e.getMessage());
        }
        try (InputStream out = p.getInputStream()) {
            p.getOutputStream().close();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                kill(p);
                return failed("timeout", "no answer within " + timeout.toMillis() + " ms, killed pid " + p.pid());
            }
            call.ended();
            String text = new String(out.readNBytes(MAX_OUTPUT_BYTES), StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                return failed("exit", "exit code " + p.exitValue() + ": " + SupervisedProcess.printable(text.strip()));
            }
            Optional<Map<String, List<Long>>> pids = NvidiaSmiCsv.processes(text);
            if (pids.isEmpty()) {
                return failed("unparseable", "output '" + SupervisedProcess.printable(text.strip()) + "'");
            }
            return pids;
        } catch (IOException e) {
            call.ended();
            return failed("exit", "output unreadable: " + e.getMessage());
        } catch (InterruptedException e) {
            kill(p);
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /**
     * Kills a run and its children. The JDK reaps it when it exits (no zombie); until then it is the one outstanding
     * run, reported stuck by {@link #checkStuck} once the silence timeout has passed since it started.
     */
    private void kill(Process p) {
        SupervisedProcess.killTree(p);
        try {
            if (p.waitFor(200, TimeUnit.MILLISECONDS)) {
                call.ended();
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        killed = p;
    }

    /** The sampling thread's watchdog: true while a run has been outstanding longer than the silence timeout. */
    boolean checkStuck(long nowNanos) {
        return call.check(nowNanos, "nvidia-smi --query-compute-apps");
    }

    boolean stuck() {
        return call.stuck();
    }

    private <T> Optional<T> failed(String reason, String why) {
        failures(reason).increment();
        long suppressed = logLimiter.admit(reason);
        if (suppressed != LogLimiter.SUPPRESS) {
            log.warn("GPU process count failed ({}), processes null until a count succeeds: {}{}", reason, why,
                    LogLimiter.suffix(suppressed));
        }
        return Optional.empty();
    }

    /**
     * Whether this process sees the host's processes: its PID namespace is the initial one, where {@code NSpid} in
     * {@code /proc/self/status} holds a single pid (one per nested namespace otherwise). Unknown (no such line: a
     * kernel older than 4.1) is taken as no.
     */
    static boolean seesHostProcesses(Path procSelfStatus) {
        try {
            for (String line : Files.readAllLines(procSelfStatus)) {
                if (line.startsWith("NSpid:")) {
                    return line.substring("NSpid:".length()).trim().split("\\s+").length == 1;
                }
            }
        } catch (IOException e) {
            log.debug("cannot read {}: {}", procSelfStatus, e.toString());
        }
        return false;
    }
}
