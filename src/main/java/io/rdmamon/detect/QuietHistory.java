package io.rdmamon.detect;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;

import java.util.ArrayList;
import java.util.List;

/**
 * What a job's quiet periods looked like so far: its ordinary gaps between bursts (compute, gradient accumulation,
 * pipeline bubbles) and its long pauses (checkpoints, evaluations, anything that outlasted the stall threshold). The
 * gaps set the job's own stall threshold; a pause the job resumed from by itself excuses later quiet up to a multiple
 * of its length.
 */
@JsonAutoDetect(fieldVisibility = Visibility.ANY, getterVisibility = Visibility.NONE,
        isGetterVisibility = Visibility.NONE)
final class QuietHistory {
    static final int MAX_GAPS = 64;
    static final int MAX_PAUSES = 8;

    /** A long quiet period: when it began (-1: not known) and how long it lasted (ms). */
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

    /**
     * Gaps of at least {@code minLength} that were learned fewer than {@code recurring} times become pauses (of
     * unknown start): a quiet that long which does not recur is not the job's rhythm.
     */
    void pausesFromRareGaps(long minLength, int recurring) {
        List<Long> rare = gaps.stream().filter(g -> g >= minLength).toList();
        if (!rare.isEmpty() && rare.size() < recurring) {
            gaps.removeIf(g -> g >= minLength);
            rare.forEach(g -> addPause(-1, g));
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
     * True when a quiet that has lasted {@code quietFor} looks like one of the job's own pauses: the job went quiet for
     * long before and resumed by itself (an evaluation pass, a checkpoint), and this quiet has not outlasted
     * {@code multiplier} × the longest such pause. Real jobs pause at irregular times (evaluation and checkpoint
     * periods count training steps, not seconds, and drift), so when is not asked, only how long.
     */
    boolean excusedAsPause(long quietFor, double multiplier) {
        return !pauses.isEmpty() && quietFor <= multiplier * longestPause();
    }

    /** The longest pause the job resumed from by itself, 0 before any. */
    long longestPause() {
        return pauses.stream().mapToLong(Pause::length).max().orElse(0);
    }
}
