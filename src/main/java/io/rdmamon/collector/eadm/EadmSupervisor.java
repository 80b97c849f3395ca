package io.rdmamon.collector.eadm;

import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.collector.EadmRate;
import io.rdmamon.support.LogLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps one {@code eadm stat -d <dev> -l} running per eRDMA device and offers its latest rate without blocking.
 *
 * <p>Each device has its own thread ({@code eadm-<device>}) that starts the command, reads its lines and restarts it
 * with exponential backoff; one watchdog thread ({@code eadm-watchdog}) kills, with its whole process tree, an eadm
 * that prints nothing for {@link EadmConfig#silenceTimeout()}. Nothing eadm does (exit, garbage, hang, missing
 * executable) escapes this class: it becomes a log line (rate-limited) and a counter.
 *
 * <p>Metrics, tagged {@code device}: {@value #RESTARTS_METRIC} (also {@code reason} = exit | silent | start-failed),
 * {@value #LINES_METRIC} (non-blank lines read), {@value #PARSE_FAILURES_METRIC} (those that held no rate).
 */
public final class EadmSupervisor implements AutoCloseable {
    public static final String RESTARTS_METRIC = "rdmamon.eadm.restarts";
    public static final String LINES_METRIC = "rdmamon.eadm.lines";
    public static final String PARSE_FAILURES_METRIC = "rdmamon.eadm.parse.failures";

    private static final Logger log = LoggerFactory.getLogger(EadmSupervisor.class);
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(5);

    private final EadmConfig config;
    private final MeterRegistry registry;
    private final long maxAgeNanos;
    private final LogLimiter lineLog = new LogLimiter(Duration.ofMinutes(1));
    private final LogLimiter lifecycleLog = new LogLimiter(Duration.ofMinutes(10));
    private final Map<String, EadmProcess> running = new ConcurrentHashMap<>();
    private final List<EadmProcess> retired = new ArrayList<>();
    private final ScheduledExecutorService watchdog;
    private boolean closed;

    public EadmSupervisor(EadmConfig config, MeterRegistry registry) {
        this.config = config;
        this.registry = registry;
        this.maxAgeNanos = config.maxAge().toNanos();
        this.watchdog = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread t = new Thread(task, "eadm-watchdog");
            t.setDaemon(true);
            return t;
        });
        long tickMs = Math.max(10, Math.min(1_000, config.silenceTimeout().toMillis() / 4));
        watchdog.scheduleWithFixedDelay(this::checkSilence, tickMs, tickMs, TimeUnit.MILLISECONDS);
    }

    /**
     * Runs eadm for exactly {@code devices} plus {@link EadmConfig#devices()}: starts the missing ones, stops those no
     * longer listed. Cheap when nothing changed, so the sampling loop may call it every pass. Does nothing when
     * {@link EadmConfig#enabled()} is false or after {@link #close()}.
     */
    public synchronized void supervise(Collection<String> devices) {
        if (closed || !config.enabled()) {
            return;
        }
        retired.removeIf(p -> !p.isAlive());
        Set<String> wanted = new TreeSet<>(devices);
        wanted.addAll(config.devices());
        running.keySet().stream().filter(d -> !wanted.contains(d)).toList().forEach(device -> {
            EadmProcess gone = running.remove(device);
            log.info("eadm {}: device no longer present, stopping its eadm", device);
            gone.stop();
            retired.add(gone);
        });
        for (String device : wanted) {
            if (!running.containsKey(device)) {
                EadmProcess p = new EadmProcess(device, config, registry, lineLog, lifecycleLog);
                running.put(device, p);
                log.info("eadm {}: supervising {}", device, config.commandFor(device));
                p.start();
            }
        }
    }

    /** The devices eadm currently runs for. */
    public Set<String> devices() {
        return Set.copyOf(running.keySet());
    }

    /** The device's latest rate, unless none was read yet or it is older than {@link EadmConfig#maxAge()}. */
    public Optional<EadmRate> latest(String device) {
        EadmProcess p = running.get(device);
        EadmRate rate = p == null ? null : p.latest();
        if (rate == null || System.nanoTime() - rate.readAtNanos() > maxAgeNanos) {
            return Optional.empty();
        }
        return Optional.of(rate);
    }

    private void checkSilence() {
        long now = System.nanoTime();
        running.values().forEach(p -> p.killIfSilent(now));
    }

    /** Kills every eadm (with its children) and waits for the supervising threads to end. */
    @Override
    public void close() {
        List<EadmProcess> all;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            all = new ArrayList<>(running.values());
            all.addAll(retired);
            running.clear();
            retired.clear();
        }
        watchdog.shutdownNow();
        all.forEach(EadmProcess::stop);
        try {
            for (EadmProcess p : all) {
                if (!p.join(JOIN_TIMEOUT)) {
                    log.warn("eadm {}: its supervising thread did not end within {} ms", p.device(),
                            JOIN_TIMEOUT.toMillis());
                }
            }
            watchdog.awaitTermination(JOIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
