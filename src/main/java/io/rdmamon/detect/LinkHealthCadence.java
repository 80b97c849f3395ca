package io.rdmamon.detect;

import io.rdmamon.jobs.AssignedSample;
import io.rdmamon.jobs.Holder;
import io.rdmamon.model.CounterClass;
import io.rdmamon.model.PortSample;

import java.util.Objects;

/**
 * Decides which port samples become {@code rdma.link-health} records: the first sample of each
 * {@code streams.link.health.interval.ms} of event time per port, and at once every sample whose verdict differs from
 * the last one published (state, physical state, holder, sharing) or that counted errors. The per-second series of
 * every port is in {@code rdma.port-samples} already; link health is the judgement, and it is news only when it
 * changes (congestion counters alone are routine under load and do not count). What was last published is kept in
 * memory ({@link PortJudge}): after a restart, each port's next sample is published again (a repeat, never a gap).
 */
final class LinkHealthCadence {
    /** What was last published for a port. */
    record Published(long bucket, String state, String physState, String job, Integer sharedBy) {
    }

    /** Congestion notifications are routine on a busy RoCE link: alone they are no reason to publish. */
    private static final String CONGESTION = CounterClass.CONGESTION.wireName();

    private final long intervalMs;

    LinkHealthCadence(long intervalMs) {
        this.intervalMs = intervalMs;
    }

    /** What to remember as published when the sample is news after {@code before} (null: none yet); null if not. */
    Published publish(Published before, AssignedSample a) {
        PortSample s = a.sample();
        Holder holder = a.assignment().primary();
        String job = holder == null ? null : holder.uid();
        Integer sharedBy = holder == null ? null : a.assignment().sharedBy();
        Published now = new Published(Math.floorDiv(s.ts(), intervalMs), s.state(), s.physState(), job, sharedBy);
        if (before != null && !hasErrorsBesidesCongestion(s) && before.bucket() >= now.bucket()
                && sameVerdict(before, now)) {
            return null;
        }
        return now;
    }

    /** A plain loop: this runs for every sample, and the map is nearly always empty (its key set is a new object). */
    private static boolean hasErrorsBesidesCongestion(PortSample s) {
        if (s.errorClasses().isEmpty()) {
            return false;
        }
        for (String errorClass : s.errorClasses().keySet()) {
            if (!CONGESTION.equals(errorClass)) {
                return true;
            }
        }
        return false;
    }

    private static boolean sameVerdict(Published a, Published b) {
        return Objects.equals(a.state(), b.state()) && Objects.equals(a.physState(), b.physState())
                && Objects.equals(a.job(), b.job()) && Objects.equals(a.sharedBy(), b.sharedBy());
    }
}
