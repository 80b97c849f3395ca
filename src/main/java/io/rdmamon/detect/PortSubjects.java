package io.rdmamon.detect;

import io.rdmamon.jobs.AssignedSample;
import io.rdmamon.jobs.Holder;
import io.rdmamon.model.PortSample;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/** Subjects and labels of port alerts: the port, and the job holding it at the sample's time when there is one. */
final class PortSubjects {
    private PortSubjects() {
    }

    static Subject of(AssignedSample assigned) {
        PortSample s = assigned.sample();
        Holder h = assigned.assignment().primary();
        return new Subject(s.key(), h == null ? null : h.job(), h == null ? null : h.namespace(), s.node(),
                s.device(), s.port());
    }

    static Map<String, String> labels(AssignedSample assigned) {
        Map<String, String> labels = new LinkedHashMap<>();
        Holder h = assigned.assignment().primary();
        if (h != null) {
            labels.put("uid", h.uid());
            labels.put("ranks", ranks(h));
            labels.put("pods", String.join(",", h.pods()));
            if (assigned.assignment().sharedBy() > 1) {
                labels.put("sharedBy", String.valueOf(assigned.assignment().sharedBy()));
            }
        }
        return labels;
    }

    /** {@code node-1/erdma_0/1, used by job llama (team-a) ranks 4,5} or {@code node-1/erdma_0/1 (unassigned)}. */
    static String describe(AssignedSample assigned) {
        Holder h = assigned.assignment().primary();
        String port = assigned.sample().key();
        if (h == null) {
            return port + " (unassigned)";
        }
        String ranks = ranks(h);
        return port + ", used by job " + h.job() + (h.namespace() == null ? "" : " (" + h.namespace() + ")")
                + (ranks.isEmpty() ? "" : " ranks " + ranks)
                + (assigned.assignment().sharedBy() > 1 ? " and " + (assigned.assignment().sharedBy() - 1)
                + " other job(s)" : "");
    }

    private static String ranks(Holder h) {
        return h.rankNumbers().stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /** Link problems of ports that a Running job uses are critical; of spare ports a warning. */
    static String severity(AssignedSample assigned, String whenAssigned) {
        return assigned.assignment().isEmpty() ? Condition.WARNING : whenAssigned;
    }
}
