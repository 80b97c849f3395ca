package io.rdmamon.detect;

import io.rdmamon.model.JobRecord;

import java.util.ArrayList;
import java.util.List;

/**
 * Which of a job's ranks a GPU belongs to, for the alert to name the rank that died or is stuck: a rank on the GPU's
 * node whose {@code gpus} list the GPU's uuid, or, when no rank there lists it, the ranks of the node that list no
 * GPUs (they hold every GPU of the node, so the GPU is one of theirs but which one cannot be said). The one place that
 * matches a rank's GPU ids with a sample's: MIG devices, time-sliced replicas and index ids belong here too.
 */
final class GpuRanks {
    private GpuRanks() {
    }

    /** The ranks the GPU {@code node}/{@code uuid} may belong to: one when known, several or none otherwise. */
    static List<JobRecord.Rank> of(List<JobRecord.Rank> ranks, String node, String uuid) {
        List<JobRecord.Rank> listing = new ArrayList<>();
        List<JobRecord.Rank> unlisted = new ArrayList<>();
        for (JobRecord.Rank rank : ranks) {
            if (!node.equals(rank.node())) {
                continue;
            }
            if (rank.gpus().isEmpty()) {
                unlisted.add(rank);
            } else if (uuid != null && rank.gpus().contains(uuid)) {
                listing.add(rank);
            }
        }
        return listing.isEmpty() ? unlisted : listing;
    }

    /** The rank numbers, for a label: "3", or "2|3" when the GPU is one of several ranks', "?" when of none known. */
    static String numbers(List<JobRecord.Rank> ranks) {
        if (ranks.isEmpty()) {
            return "?";
        }
        StringBuilder out = new StringBuilder();
        for (JobRecord.Rank rank : ranks) {
            out.append(out.isEmpty() ? "" : "|").append(rank.rank());
        }
        return out.toString();
    }

    /** "rank 3 (pod p, node n, GPU 1 GPU-...)", for a summary. */
    static String describe(List<JobRecord.Rank> ranks, String node, int gpu, String uuid) {
        String where = "node " + node + ", GPU " + gpu + (uuid == null ? "" : " " + uuid);
        if (ranks.size() == 1) {
            JobRecord.Rank rank = ranks.get(0);
            return "rank " + rank.rank() + " (" + (rank.pod() == null ? "" : "pod " + rank.pod() + ", ") + where + ")";
        }
        return (ranks.isEmpty() ? "an unknown rank" : "one of ranks " + numbers(ranks).replace('|', ',')) + " ("
                + where + ")";
    }
}
