package io.rdmamon.jobs;

import io.rdmamon.model.JobRecord;
import org.apache.kafka.streams.KeyValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a job record means for the assignment table: the devices and nodes a Running job holds, and the changes
 * between two versions of the same job. Only Running jobs hold anything: a Pending job's pods do not run yet, and a
 * Succeeded/Failed/Deleted job has let go.
 */
public final class AssignmentDiff {
    private AssignmentDiff() {
    }

    /** Key ({@link AssignmentKeys}) → this job's hold, for every device and node the job uses. */
    public static Map<String, Holder> holds(JobRecord job) {
        if (job == null || !JobRecord.RUNNING.equals(job.state())) {
            return Map.of();
        }
        int expectedRanks = (int) job.ranks().stream().filter(r -> !r.devices().isEmpty()).count();
        Map<String, List<JobRecord.Rank>> ranksByKey = new TreeMap<>();
        for (JobRecord.Rank rank : job.ranks()) {
            // the GPUs stay: a GPU sample goes to the job whose rank holds it (NodeAssigner)
            JobRecord.Rank slim = new JobRecord.Rank(rank.rank(), rank.pod(), rank.node(), List.of(), null, null,
                    rank.gpus());
            ranksByKey.computeIfAbsent(AssignmentKeys.node(rank.node()), k -> new ArrayList<>()).add(slim);
            for (String device : new TreeSet<>(rank.devices().stream().map(AssignmentDiff::physical).toList())) {
                ranksByKey.computeIfAbsent(AssignmentKeys.device(rank.node(), device), k -> new ArrayList<>())
                        .add(slim);
            }
        }
        Map<String, Holder> out = new TreeMap<>();
        ranksByKey.forEach((key, ranks) ->
                out.put(key, new Holder(job.uid(), job.job(), job.namespace(), ranks, expectedRanks)));
        return out;
    }

    /** The table changes that turn {@code previous}'s holds (null: none) into {@code next}'s. */
    public static List<KeyValue<String, HolderUpdate>> changes(String uid, JobRecord previous, JobRecord next) {
        Map<String, Holder> before = holds(previous);
        Map<String, Holder> after = holds(next);
        List<KeyValue<String, HolderUpdate>> out = new ArrayList<>();
        TreeSet<String> keys = new TreeSet<>(before.keySet());
        keys.addAll(after.keySet());
        for (String key : keys) {
            Holder now = after.get(key);
            if (!Objects.equals(before.get(key), now)) {
                out.add(KeyValue.pair(key, new HolderUpdate(uid, now)));
            }
        }
        return out;
    }

    /**
     * Device plugins may hand out virtual ids ({@code erdma_0/17} for Alibaba's ACK eRDMA controller): the samples
     * name the physical device.
     */
    static String physical(String device) {
        int slash = device.indexOf('/');
        return slash < 0 ? device : device.substring(0, slash);
    }
}
