package io.rdmamon.detect;

import io.rdmamon.model.GpuIds;
import io.rdmamon.model.JobRecord;

import java.util.ArrayList;
import java.util.List;

/**
 * Which of a job's ranks a GPU belongs to, for the alert to name the rank that died or is stuck: a rank on the GPU's
 * node whose {@code gpus} name the GPU as the routing does ({@link GpuIds}: its uuid, a time-sliced replica, a MIG
 * device on it, its index), or, when no rank there names it, the ranks of the node that list no GPUs (they hold every
 * GPU of the node, so the GPU is one of theirs but which one cannot be said).
 */
final class GpuRanks {
    private GpuRanks() {
    }

    /**
     * The ranks the GPU {@code uuid} at {@code index} of {@code node} (with {@code migDevices}, null without MIG) may
     * belong to: one when known, several or none otherwise.
     */
    static List<JobRecord.Rank> of(List<JobRecord.Rank> ranks, String node, String uuid, int index,
                                   List<String> migDevices) {
        List<JobRecord.Rank> listing = new ArrayList<>();
        List<JobRecord.Rank> unlisted = new ArrayList<>();
        for (JobRecord.Rank rank : ranks) {
            if (!node.equals(rank.node())) {
                continue;
            }
            if (rank.gpus().isEmpty()) {
                unlisted.add(rank);
            } else if (rank.gpus().stream().anyMatch(id -> GpuIds.refersTo(id, uuid, index, migDevices))) {
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
