package io.rdmamon.detect;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One job's traffic second by second, as its exclusive ports report it. A second is <em>settled</em> once the job's
 * newest sample is the lateness ({@code streams.stall.lateness.ms}) past its end: its verdict (the job had traffic in
 * that second, or was quiet)
 * is then final, and a sample for it that comes later still is dropped. What {@link StallDetector} learns (the quiets
 * the job resumed from, its warm-up, the usual rate of a port) is read from settled seconds only, so any order of
 * the same samples within the lateness teaches the same. The seconds not yet settled say what is known so far, for
 * the alert that cannot wait.
 *
 * <p>Its size does not grow with the job: a few seconds of counts, not a sample per port.
 */
@JsonAutoDetect(fieldVisibility = Visibility.ANY, getterVisibility = Visibility.NONE,
        isGetterVisibility = Visibility.NONE)
final class JobSeconds {
    static final long SECOND_MS = 1_000;
    private static final double BASELINE_ALPHA = 0.05;

    /**
     * One second of the job's ports: samples in it, samples with traffic and their summed rate (whole bytes/s, so
     * the sum does not depend on the order), the first and the last sample with traffic, the longest sampling
     * interval.
     */
    record Second(long start, int reporting, int active, long activeRate, long firstActiveAt, long lastActiveAt,
                  long intervalMs) {
        /**
         * The job had traffic in this second: more than {@code 1 - quietFraction} of its ports did, counted against
         * this second's samples or the previous second's, whichever are more (a second whose other samples are yet
         * to come is not judged by its first one alone).
         */
        boolean jobActive(int previousReporting, double quietFraction) {
            return active > (1 - quietFraction) * Math.max(reporting, previousReporting) + 1e-9;
        }
    }

    /** A second and whether the job had traffic in it. */
    record Verdict(Second second, boolean jobActive) {
    }

    /** The seconds not yet settled, oldest first. */
    private final List<Second> open = new ArrayList<>();
    /** Samples in the newest settled second. */
    private int settledReporting;
    /** The usual tx+rx of an active port (EWMA over the settled seconds); null before any. */
    private Double baseline;
    /**
     * {@link #baseline} after each recent settled second. A second's samples are judged against the usual rate as it
     * stood the lateness and a second before it: those seconds are settled before any sample of this one can be
     * counted, so every order judges a sample alike.
     */
    private final TreeMap<Long, Double> baselines = new TreeMap<>();

    static long secondOf(long ts) {
        return ts - Math.floorMod(ts, SECOND_MS);
    }

    /** A sample at {@code ts} is too late to count: its second was settled at {@code now}. */
    static boolean settled(long ts, long now, long latenessMs) {
        return secondOf(ts) + SECOND_MS + latenessMs <= now;
    }

    /** The usual rate of an active port that a sample at {@code ts} is judged against; null before any. */
    Double baselineAt(long ts, long latenessMs) {
        Map.Entry<Long, Double> at = baselines.floorEntry(secondOf(ts) - latenessMs - SECOND_MS);
        return at == null ? null : at.getValue();
    }

    /** Counts a sample of a second not yet settled. */
    void count(long ts, double rate, boolean active, long intervalMs) {
        long start = secondOf(ts);
        int i = 0;
        while (i < open.size() && open.get(i).start() < start) {
            i++;
        }
        Second s = i < open.size() && open.get(i).start() == start ? open.get(i)
                : new Second(start, 0, 0, 0, Long.MAX_VALUE, Long.MIN_VALUE, 0);
        Second counted = active
                ? new Second(start, s.reporting() + 1, s.active() + 1, s.activeRate() + Math.round(rate),
                        Math.min(s.firstActiveAt(), ts), Math.max(s.lastActiveAt(), ts),
                        Math.max(s.intervalMs(), intervalMs))
                : new Second(start, s.reporting() + 1, s.active(), s.activeRate(), s.firstActiveAt(),
                        s.lastActiveAt(), Math.max(s.intervalMs(), intervalMs));
        if (s.reporting() == 0) {
            open.add(i, counted);
        } else {
            open.set(i, counted);
        }
    }

    /** Settles every second that {@code now} is the lateness past, oldest first, with its final verdict. */
    List<Verdict> settle(long now, long latenessMs, double quietFraction) {
        List<Verdict> settled = new ArrayList<>();
        while (!open.isEmpty() && settled(open.get(0).start(), now, latenessMs)) {
            Second s = open.remove(0);
            settled.add(new Verdict(s, s.jobActive(settledReporting, quietFraction)));
            settledReporting = s.reporting();
            if (s.active() > 0) {
                double mean = (double) s.activeRate() / s.active();
                baseline = baseline == null ? mean
                        : mean + (baseline - mean) * Math.pow(1 - BASELINE_ALPHA, s.active());
            }
            if (baseline != null) {
                baselines.put(s.start(), baseline);
            }
        }
        // the open seconds and those to come look back no further than the newest baseline at or before this
        long firstOpen = secondOf(now - SECOND_MS - latenessMs) + SECOND_MS;
        Long oldestNeeded = baselines.floorKey(firstOpen - latenessMs - SECOND_MS);
        if (oldestNeeded != null) {
            baselines.headMap(oldestNeeded).clear();
        }
        return settled;
    }

    /** The open seconds, oldest first, each with whether the job has traffic in it as far as its samples so far say. */
    List<Verdict> open(double quietFraction) {
        List<Verdict> verdicts = new ArrayList<>(open.size());
        int previous = settledReporting;
        for (Second s : open) {
            verdicts.add(new Verdict(s, s.jobActive(previous, quietFraction)));
            previous = s.reporting();
        }
        return verdicts;
    }
}
