package io.rdmamon.jobs;

import java.util.ArrayList;
import java.util.List;

/**
 * The assignments of one device ({@code node/device}) or node ({@code node/*}) over time, oldest first: each
 * {@link Version} holds from its {@code from} until the next one. A sample joins the version valid at its own
 * timestamp, so a replay of old samples, or samples processed after a later job change, still get the job that held
 * the device when they were taken. Versions older than the retention (counted back from the newest) are dropped,
 * except the one still valid at that boundary.
 */
public record AssignmentHistory(List<Version> versions) {
    public record Version(long from, Assignment assignment) {
    }

    public AssignmentHistory {
        versions = versions == null ? List.of() : List.copyOf(versions);
    }

    /** The assignment valid at {@code ts}: {@link Assignment#NONE} before the first version. */
    public Assignment at(long ts) {
        for (int i = versions.size() - 1; i >= 0; i--) {
            if (versions.get(i).from() <= ts) {
                return versions.get(i).assignment();
            }
        }
        return Assignment.NONE;
    }

    /** The newest assignment, whatever its time. */
    public Assignment latest() {
        return versions.isEmpty() ? Assignment.NONE : versions.get(versions.size() - 1).assignment();
    }

    /** This history with {@code assignment} valid from {@code from} (replacing a version of the same time). */
    public AssignmentHistory with(long from, Assignment assignment, long retentionMs) {
        List<Version> next = new ArrayList<>(versions.size() + 1);
        boolean added = false;
        for (Version v : versions) {
            if (!added && v.from() >= from) {
                next.add(new Version(from, assignment));
                added = true;
                if (v.from() == from) {
                    continue;
                }
            }
            next.add(v);
        }
        if (!added) {
            next.add(new Version(from, assignment));
        }
        long horizon = next.get(next.size() - 1).from() - retentionMs;
        while (next.size() > 1 && next.get(1).from() <= horizon) {
            next.remove(0);
        }
        return new AssignmentHistory(next);
    }

    /** Nothing holds the key now, nor within the retention: the history can go. */
    public boolean isEmpty() {
        return versions.stream().allMatch(v -> v.assignment().isEmpty());
    }
}
