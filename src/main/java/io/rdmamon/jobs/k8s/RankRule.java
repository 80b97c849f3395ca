package io.rdmamon.jobs.k8s;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Ranks from replica types and indexes. Types are taken in the configured order ({@code master,chief,worker} by
 * default; unlisted types after them, alphabetically; skipped types such as an MPIJob's {@code launcher} get no
 * rank). A type occupies as many ranks as its highest index plus one, so rank = (ranks of the types before it) +
 * index: a PyTorchJob with master-0 and worker-0..2 has ranks 0, 1, 2, 3; a worker-only job has ranks 0..N-1.
 * An explicit rank label wins. Pods with no index at all follow every other rank, in pod-name order.
 *
 * <p>The highest index seen per type is remembered for the job's lifetime ({@link Shape}), so a master pod that is
 * briefly gone while it is re-created does not shift every worker's rank down by one.
 */
final class RankRule {
    private final List<String> order;
    private final Set<String> skip;

    RankRule(List<String> order, Set<String> skip) {
        this.order = List.copyOf(order);
        this.skip = Set.copyOf(skip);
    }

    /** Highest index seen per replica type over a job's life. */
    static final class Shape {
        private final Map<String, Integer> maxIndex = new HashMap<>();

        void see(String type, int index) {
            maxIndex.merge(type, index, Math::max);
        }

        int size(String type) {
            Integer max = maxIndex.get(type);
            return max == null ? 0 : max + 1;
        }

        Set<String> types() {
            return maxIndex.keySet();
        }
    }

    record Ranked(TrainingPod pod, int rank) {
    }

    /** The ranks of {@code pods} (skipped types left out), sorted by rank; updates {@code shape}. */
    List<Ranked> rank(List<TrainingPod> pods, Shape shape) {
        List<TrainingPod> ranked = pods.stream().filter(p -> !skip.contains(p.replicaType())).toList();
        ranked.stream().filter(p -> p.index() != null).forEach(p -> shape.see(p.replicaType(), p.index()));
        Map<String, Integer> offsets = offsets(shape);
        int indexedRanks = shape.types().stream().mapToInt(shape::size).sum();
        List<Ranked> out = new ArrayList<>();
        List<TrainingPod> unindexed = new ArrayList<>();
        for (TrainingPod p : ranked) {
            if (p.explicitRank() != null) {
                out.add(new Ranked(p, p.explicitRank()));
            } else if (p.index() != null) {
                out.add(new Ranked(p, offsets.get(p.replicaType()) + p.index()));
            } else {
                unindexed.add(p);
            }
        }
        unindexed.sort(Comparator.comparing(TrainingPod::pod));
        int next = Math.max(indexedRanks, out.stream().mapToInt(r -> r.rank() + 1).max().orElse(0));
        for (int i = 0; i < unindexed.size(); i++) {
            out.add(new Ranked(unindexed.get(i), next + i));
        }
        out.sort(Comparator.comparingInt(Ranked::rank).thenComparing(r -> r.pod().pod()));
        return out;
    }

    /** The job's size: every rank its shape implies, or more when pods carry higher ranks. Null without ranks. */
    static Integer worldSize(List<Ranked> ranks, Shape shape) {
        if (ranks.isEmpty()) {
            return null;
        }
        int fromShape = shape.types().stream().mapToInt(shape::size).sum()
                + (int) ranks.stream().filter(r -> r.pod().index() == null && r.pod().explicitRank() == null).count();
        int highest = ranks.get(ranks.size() - 1).rank() + 1;
        return Math.max(fromShape, highest);
    }

    private Map<String, Integer> offsets(Shape shape) {
        Map<String, Integer> sorted = new TreeMap<>(Comparator.comparingInt(this::position)
                .thenComparing(Comparator.naturalOrder()));
        shape.types().forEach(t -> sorted.put(t, shape.size(t)));
        Map<String, Integer> offsets = new LinkedHashMap<>();
        int next = 0;
        for (Map.Entry<String, Integer> e : sorted.entrySet()) {
            offsets.put(e.getKey(), next);
            next += e.getValue();
        }
        return offsets;
    }

    private int position(String type) {
        int i = order.indexOf(type);
        return i < 0 ? order.size() : i;
    }
}
