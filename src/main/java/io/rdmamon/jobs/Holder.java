package io.rdmamon.jobs;

import io.rdmamon.model.JobRecord;

import java.util.List;

/**
 * One Running job's hold on a device (or a node): which of its ranks use it, and how many ranks the job expects to
 * report RDMA traffic (ranks with at least one device), for "ranks reporting vs expected".
 */
public record Holder(String uid, String job, String namespace, List<JobRecord.Rank> ranks, int expectedRanks) {
    public Holder {
        ranks = ranks == null ? List.of() : List.copyOf(ranks);
    }

    /** A loop, not a stream: every port's window asks. */
    public List<Integer> rankNumbers() {
        Integer[] numbers = new Integer[ranks.size()];
        for (int i = 0; i < numbers.length; i++) {
            numbers[i] = ranks.get(i).rank();
        }
        return List.of(numbers);
    }

    public List<String> pods() {
        return ranks.stream().map(JobRecord.Rank::pod).filter(p -> p != null).toList();
    }
}
