package io.rdmamon.detect;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;

import java.util.ArrayList;
import java.util.List;

/**
 * The quiet periods a job resumed from by itself: gaps between bursts (compute, gradient accumulation, pipeline
 * bubbles), evaluation passes, checkpoints, data-loader stalls. They are one kind of thing: whatever the job was
 * doing, it went quiet this long and came back, so a later quiet up to a multiple of the longest of them is its own.
 * Whether a quiet came during warm-up, at a regular rhythm or once is not asked: a rule that treated rhythms and
 * pauses apart gave one job two thresholds, and which one won depended on the order its quiets came in.
 */
@JsonAutoDetect(fieldVisibility = Visibility.ANY, getterVisibility = Visibility.NONE,
        isGetterVisibility = Visibility.NONE)
final class QuietHistory {
    static final int MAX_QUIETS = 64;

    /** A quiet period the job resumed from: when it began and how long it lasted (ms). */
    record Quiet(long start, long length) {
    }

    /**
     * The latest quiets, oldest first. A quiet is learned once, from settled seconds ({@link JobSeconds}), and never
     * changed after: a sample later than the lateness the app accepts cannot shorten it, nor remove it.
     */
    private final List<Quiet> quiets = new ArrayList<>();
    /** The longest of the quiets that no longer fit in {@link #quiets}: a job's longest pause is never forgotten. */
    private Quiet longestForgotten;

    void add(long start, long length) {
        quiets.add(new Quiet(start, length));
        if (quiets.size() > MAX_QUIETS) {
            Quiet dropped = quiets.remove(0);
            if (longestForgotten == null || dropped.length() > longestForgotten.length()) {
                longestForgotten = dropped;
            }
        }
    }

    /** The longest quiet the job resumed from by itself, null before any. */
    Quiet longest() {
        Quiet longest = longestForgotten;
        for (Quiet q : quiets) {
            if (longest == null || q.length() > longest.length()) {
                longest = q;
            }
        }
        return longest;
    }

    /**
     * How long the job may stay quiet before it is stalled: {@code multiplier} × the longest quiet it resumed from,
     * within [{@code min}, {@code max}]. It never climbs past what the job has shown; before any quiet it is {@code min}.
     */
    long threshold(double multiplier, long min, long max) {
        Quiet longest = longest();
        long learned = longest == null ? 0 : Math.round(multiplier * longest.length());
        return Math.min(max, Math.max(min, learned));
    }
}
