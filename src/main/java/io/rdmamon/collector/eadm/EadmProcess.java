package io.rdmamon.collector.eadm;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.collector.EadmRate;
import io.rdmamon.support.LogLimiter;
import io.rdmamon.collector.process.SupervisedProcess;
import io.rdmamon.collector.process.SupervisedProcess.Restart;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * One supervised {@code eadm stat -l} for one device ({@link SupervisedProcess}): its lines become the device's
 * latest rate; lines that hold none are logged with their text and counted.
 */
final class EadmProcess implements SupervisedProcess.Output {
    private static final Logger log = LoggerFactory.getLogger(EadmProcess.class);

    private final String device;
    private final LogLimiter lineLog;
    private final Counter lines;
    private final Counter parseFailures;
    private final Map<Restart, Counter> restarts = new EnumMap<>(Restart.class);
    private final SupervisedProcess process;

    private volatile EadmRate latest;

    EadmProcess(String device, EadmConfig config, MeterRegistry registry, LogLimiter lineLog, LogLimiter lifecycleLog) {
        this.device = device;
        this.lineLog = lineLog;
        this.lines = Counter.builder(EadmSupervisor.LINES_METRIC).tag("device", device)
                .description("non-blank lines read from eadm").register(registry);
        this.parseFailures = Counter.builder(EadmSupervisor.PARSE_FAILURES_METRIC).tag("device", device)
                .description("eadm lines that held no rate").register(registry);
        for (Restart reason : Restart.values()) {
            restarts.put(reason, Counter.builder(EadmSupervisor.RESTARTS_METRIC).tag("device", device)
                    .tag("reason", reason.tag)
                    .description("eadm restarts: exit = it ended, silent = killed after the silence timeout, "
                            + "start-failed = it could not be started").register(registry));
        }
        this.process = new SupervisedProcess(new SupervisedProcess.Settings("eadm " + device,
                config.commandFor(device), config.silenceTimeout(), config.backoffInitial(), config.backoffMax(),
                config.stableRun(), "Is the eRDMA tool installed? Set eadm.command to its path, or eadm.enabled=false"),
                this, log, lifecycleLog);
    }

    void start() {
        process.start();
    }

    String device() {
        return device;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** The last rate read, however old; {@code null} before the first. */
    EadmRate latest() {
        return latest;
    }

    void killIfSilent(long nowNanos) {
        process.killIfSilent(nowNanos);
    }

    void stop() {
        process.stop();
    }

    boolean join(Duration timeout) throws InterruptedException {
        return process.join(timeout);
    }

    @Override
    public void line(String text, long nanos) {
        lines.increment();
        EadmLineParser.parse(device, text, nanos).ifPresentOrElse(rate -> latest = rate, () -> {
            parseFailures.increment();
            long suppressed = lineLog.admit(device);
            if (suppressed != LogLimiter.SUPPRESS) {
                log.warn("eadm {}: no rate in line '{}'{}", device, SupervisedProcess.printable(text),
                        LogLimiter.suffix(suppressed));
            }
        });
    }

    @Override
    public void restarting(Restart reason) {
        restarts.get(reason).increment();
    }
}
