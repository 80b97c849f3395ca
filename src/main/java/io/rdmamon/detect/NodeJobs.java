package io.rdmamon.detect;

import io.rdmamon.jobs.Assignment;
import io.rdmamon.jobs.AssignmentHistory;
import io.rdmamon.jobs.AssignmentKeys;
import io.rdmamon.jobs.Holder;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.PodIdentity;
import io.rdmamon.state.ObjectStore;

import java.util.stream.Collectors;

/**
 * The jobs on a node, as the job join's assignment history ({@link io.rdmamon.jobs.NodeAssigner}) knows them, for
 * {@link CollectorSilenceDetector}: a collector that stops while a job runs on its node is reported naming the job;
 * an in-pod collector (ACS: its node is its pod, {@link PodIdentity}) that stops with its pod's job is a pod that
 * ended, not a silent collector.
 */
final class NodeJobs {
    private final ObjectStore<AssignmentHistory> histories;

    NodeJobs(ObjectStore<AssignmentHistory> histories) {
        this.histories = histories;
    }

    /**
     * The node was a pod monitored from inside, held by a job at its last sample ({@code lastSampleTs}), and no job
     * holds it now: the job ended (or let the pod go) and the pod's collector went with it.
     */
    boolean podEndedWithItsJob(String node, long lastSampleTs) {
        AssignmentHistory history = histories.get(AssignmentKeys.node(node));
        if (history == null || !history.latest().isEmpty()) {
            return false;
        }
        for (Holder holder : history.at(lastSampleTs).holders()) {
            for (JobRecord.Rank rank : holder.ranks()) {
                if (node.equals(rank.node()) && rank.pod() != null && holder.namespace() != null
                        && node.equals(PodIdentity.node(holder.namespace(), rank.pod()))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether a job holds the node now. */
    boolean running(String node) {
        return !runningText(node).isEmpty();
    }

    /** {@code "; job j (ns) runs on it"} for the jobs holding the node now, empty when none. */
    String runningText(String node) {
        AssignmentHistory history = histories.get(AssignmentKeys.node(node));
        Assignment now = history == null ? Assignment.NONE : history.latest();
        if (now.isEmpty()) {
            return "";
        }
        return "; running on it: " + now.holders().stream()
                .map(h -> "job " + h.job() + (h.namespace() == null ? "" : " (" + h.namespace() + ")"))
                .collect(Collectors.joining(", "));
    }
}
