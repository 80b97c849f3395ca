package io.rdmamon.jobs;

import io.rdmamon.model.GpuIds;
import io.rdmamon.model.GpuSample;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The Running jobs holding one device ({@code node/device}) or one node ({@code node/*}) at a point in time: the
 * value of the versioned assignment table. More than one holder means the device is shared: its bytes cannot be
 * split exactly between the jobs.
 */
public record Assignment(List<Holder> holders) {
    public static final Assignment NONE = new Assignment(List.of());

    public Assignment {
        holders = holders == null ? List.of() : holders.stream().sorted(Comparator.comparing(Holder::uid)).toList();
    }

    public static Assignment orNone(Assignment assignment) {
        return assignment == null ? NONE : assignment;
    }

    public boolean isEmpty() {
        return holders.isEmpty();
    }

    public int sharedBy() {
        return holders.size();
    }

    /** The first holder by uid, or null when nothing holds it. */
    public Holder primary() {
        return holders.isEmpty() ? null : holders.get(0);
    }

    /**
     * The holders of a node whose ranks there hold the GPU of {@code sample} ({@link GpuIds}: its uuid, one of its MIG
     * devices or time-sliced replicas, or its index): a rank that does not say which GPUs it holds holds them all, and
     * so does every rank for a sample without a uuid.
     */
    public Assignment holdingGpu(GpuSample sample) {
        if (sample.uuid() == null || holders.isEmpty()) {
            return this;
        }
        List<Holder> out = new ArrayList<>(holders.size());
        for (Holder holder : holders) {
            if (holder.ranks().stream().anyMatch(r -> r.gpus().isEmpty()
                    || r.gpus().stream().anyMatch(id -> GpuIds.refersTo(id, sample)))) {
                out.add(holder);
            }
        }
        return out.size() == holders.size() ? this : new Assignment(out);
    }

    /** This assignment with {@code uid}'s hold replaced by {@code holder} (removed when null). */
    public Assignment with(String uid, Holder holder) {
        List<Holder> next = new ArrayList<>(holders.stream().filter(h -> !h.uid().equals(uid)).toList());
        if (holder != null) {
            next.add(holder);
        }
        return new Assignment(next);
    }
}
