package io.rdmamon.detect;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;

import java.util.ArrayList;
import java.util.List;

/**
 * What a job's quiet periods looked like so far: its ordinary gaps between bursts (compute, gradient accumulation,
 * pipeline bubbles) and its long pauses (checkpoints, evaluations, anything that outlasted the stall threshold). The
 * gaps set the job's own stall threshold; pauses that recur at a regular period excuse the next one when it is due.
 */
@JsonAutoDetect(fieldVisibility = Visibility.ANY, getterVisibility = Visibility.NONE,
        isGetterVisibility = Visibility.NONE)
final class QuietHistory {
    static final int MAX_GAPS = 64;
    static final int MAX_PAUSES = 8;

    /** A long quiet period: when it began and how long it lasted (ms). */
    record Pause(long start, long length) {
    }

    private final List<Long> gaps = new ArrayList<>();
    private final List<Pause> pauses = new ArrayList<>();

    void addGap(long length) {
        gaps.add(length);
        if (gaps.size() > MAX_GAPS) {
            gaps.remove(0);
        }
    }

    /**
     * The last gap learned was in fact only {@code length} long (traffic inside it was reported late); no gap at all
     * when that is no longer than {@code quietGap}.
     */
    void shortenLastGap(long length, long quietGap) {
        int last = gaps.size() - 1;
        if (last < 0 || length >= gaps.get(last)) {
            return;
        }
        if (length > quietGap) {
            gaps.set(last, length);
        } else {
            gaps.remove(last);
        }
    }

    void addPause(long start, long length) {
        pauses.add(new Pause(start, length));
        if (pauses.size() > MAX_PAUSES) {
            pauses.remove(0);
        }
    }

    /** The {@code q} quantile of the learned gaps (nearest rank), null before any gap was learned. */
    Long gapQuantile(double q) {
        if (gaps.isEmpty()) {
            return null;
        }
        List<Long> sorted = new ArrayList<>(gaps);
        sorted.sort(Long::compare);
        int index = (int) Math.ceil(q * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    /**
     * True when a quiet that began at {@code start} and has lasted {@code quietFor} looks like the job's periodic
     * pause: at least two pauses seen, the period between the last two repeats, this one began within
     * {@code tolerance} × period of when the next was due, and it has not outlasted {@code multiplier} × the longest
     * learned pause.
     */
    boolean predictsPause(long start, long quietFor, double multiplier, double tolerance) {
        if (pauses.size() < 2) {
            return false;
        }
        Pause last = pauses.get(pauses.size() - 1);
        long period = last.start() - pauses.get(pauses.size() - 2).start();
        if (period <= 0) {
            return false;
        }
        long periods = Math.max(1, Math.round((double) (start - last.start()) / period));
        long due = last.start() + periods * period;
        long longest = pauses.stream().mapToLong(Pause::length).max().orElse(0);
        return Math.abs(start - due) <= tolerance * period && quietFor <= multiplier * longest;
    }
}
