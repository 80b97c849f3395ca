package io.rdmamon.collector.eadm;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.collector.EadmRate;
import io.rdmamon.support.LogLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Compares, per device and direction, the byte rate derived from sysfs hw_counters (summed over the device's ports)
 * with the one eadm prints. Both sides are averaged over the last {@link EadmConfig#crossCheckWindow()} checks
 * before comparing, because eadm's one-second windows are not aligned with the collector's passes. A direction where
 * both averages are below {@link EadmConfig#crossCheckMinBytesPerSec()} is not compared.
 *
 * <p>A disagreement beyond the tolerance counts {@value #MISMATCHES_METRIC} (tags {@code device}, {@code direction} =
 * tx | rx) and logs both figures (once a minute per device and direction at most). It never changes what is
 * published: the sysfs rates stay the published ones.
 */
public final class EadmCrossCheck {
    public static final String MISMATCHES_METRIC = "rdmamon.eadm.crosscheck.mismatches";

    private static final Logger log = LoggerFactory.getLogger(EadmCrossCheck.class);
    private static final double MIB = 1024 * 1024;

    private final double tolerance;
    private final double minBytesPerSec;
    private final int window;
    private final MeterRegistry registry;
    private final LogLimiter mismatchLog = new LogLimiter(Duration.ofMinutes(1));
    private final Map<String, Window> windows = new HashMap<>();

    public EadmCrossCheck(EadmConfig config, MeterRegistry registry) {
        this.tolerance = config.crossCheckTolerance();
        this.minBytesPerSec = config.crossCheckMinBytesPerSec();
        this.window = config.crossCheckWindow();
        this.registry = registry;
    }

    /** A direction where sysfs and eadm disagree: both averages and their distance |a − b| / max(a, b). */
    public record Mismatch(String device, String direction, double sysfsBytesPerSec, double eadmBytesPerSec,
                           double relativeDifference) {
    }

    /**
     * Adds one pass's figures and returns the directions that disagree now (empty when they agree, when fewer than
     * a window of figures exist yet, or when traffic is negligible). A {@code null} sysfs rate (unknown: first
     * sample, reset, saturation) or a {@code null} eadm rate (none fresh) adds nothing.
     */
    public synchronized List<Mismatch> check(String device, Double sysfsTxBytesPerSec, Double sysfsRxBytesPerSec,
                                             EadmRate eadm) {
        List<Mismatch> mismatches = new ArrayList<>();
        if (eadm == null) {
            return mismatches;
        }
        compare(device, "tx", sysfsTxBytesPerSec, eadm.txBytesPerSec(), mismatches);
        compare(device, "rx", sysfsRxBytesPerSec, eadm.rxBytesPerSec(), mismatches);
        return mismatches;
    }

    private void compare(String device, String direction, Double sysfs, double eadm, List<Mismatch> out) {
        if (sysfs == null || !Double.isFinite(sysfs)) {
            return;
        }
        Window w = windows.computeIfAbsent(device + "/" + direction, k -> new Window(window,
                Counter.builder(MISMATCHES_METRIC).tag("device", device).tag("direction", direction)
                        .description("checks where the sysfs and eadm byte rates disagreed beyond the tolerance")
                        .register(registry)));
        w.add(sysfs, eadm);
        if (!w.full()) {
            return;
        }
        double sysfsMean = w.sysfsMean();
        double eadmMean = w.eadmMean();
        double larger = Math.max(sysfsMean, eadmMean);
        if (larger < minBytesPerSec) {
            return;
        }
        double difference = Math.abs(sysfsMean - eadmMean) / larger;
        if (difference <= tolerance) {
            w.apart = 0;
            return;
        }
        // eadm's one-second lines lag the sysfs passes: after every traffic step (job start, end of a checkpoint)
        // the two windowed means disagree until the window holds only post-step figures. A real disagreement
        // outlasts that; a transient with a lag of up to a window does not last two windows.
        if (++w.apart < 2 * window) {
            return;
        }
        out.add(new Mismatch(device, direction, sysfsMean, eadmMean, difference));
        w.mismatches.increment();
        long suppressed = mismatchLog.admit(device + "/" + direction);
        if (suppressed != LogLimiter.SUPPRESS) {
            log.warn("eadm cross-check {} {}: sysfs {} MiB/s, eadm {} MiB/s ({}% apart, tolerance {}%, "
                            + "means over the last {} passes){}", device, direction,
                    String.format("%.2f", sysfsMean / MIB), String.format("%.2f", eadmMean / MIB),
                    Math.round(difference * 100), Math.round(tolerance * 100), window, LogLimiter.suffix(suppressed));
        }
    }

    /** The last {@code size} (sysfs, eadm) pairs of one device and direction, and its mismatch counter. */
    private static final class Window {
        private final int size;
        private final Counter mismatches;
        private final ArrayDeque<double[]> pairs = new ArrayDeque<>();
        /** Consecutive full-window checks whose means were further apart than the tolerance. */
        private int apart;

        Window(int size, Counter mismatches) {
            this.size = size;
            this.mismatches = mismatches;
        }

        void add(double sysfs, double eadm) {
            pairs.addLast(new double[]{sysfs, eadm});
            if (pairs.size() > size) {
                pairs.removeFirst();
            }
        }

        boolean full() {
            return pairs.size() == size;
        }

        double sysfsMean() {
            return pairs.stream().mapToDouble(p -> p[0]).sum() / size;
        }

        double eadmMean() {
            return pairs.stream().mapToDouble(p -> p[1]).sum() / size;
        }
    }
}
