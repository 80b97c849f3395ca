package io.rdmamon.scenario;

import io.rdmamon.model.JobRecord;
import io.rdmamon.sim.TrainingTrafficModel;
import io.rdmamon.sim.TrainingJobSpec;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A training job of a scenario: its metadata records as the job source publishes them over its life (Pending,
 * Running, then Succeeded if it ends), and the traffic its ranks make. Rank {@code r}'s device {@code d} in the
 * Running record carries traffic index {@code d} of the model; devices beyond the model's {@code devicesPerRank} are
 * allocated to the job but carry nothing.
 */
public record SimulatedJob(List<JobRecord> lifecycle, TrainingJobSpec traffic) {

    /** Pods become Pending this long before they run. */
    static final long PENDING_LEAD_MS = 30_000;

    public SimulatedJob {
        lifecycle = List.copyOf(lifecycle);
        if (lifecycle.stream().noneMatch(j -> JobRecord.RUNNING.equals(j.state()))) {
            throw new IllegalArgumentException("a simulated job needs a Running record");
        }
    }

    /**
     * A job Running from {@code runningAt}, and Succeeded at {@code succeededAt} when not null. The uid is derived
     * from scenario and job name, so it is the same in every run.
     */
    public static SimulatedJob create(String scenario, String name, String namespace, List<JobRecord.Rank> ranks,
                                      long runningAt, Long succeededAt, TrainingJobSpec traffic) {
        String uid = UUID.nameUUIDFromBytes((scenario + "/" + namespace + "/" + name)
                .getBytes(StandardCharsets.UTF_8)).toString();
        // sorted: Map.of's iteration order changes from one JVM to the next, the files must not
        Map<String, String> labels = new TreeMap<>(Map.of("training.kubeflow.org/job-name", name, "release", name));
        List<JobRecord> records = new ArrayList<>();
        records.add(new JobRecord(JobRecord.VERSION, uid, name, namespace, JobRecord.PENDING,
                runningAt - PENDING_LEAD_MS, null, ranks.size(), List.of(), labels));
        records.add(new JobRecord(JobRecord.VERSION, uid, name, namespace, JobRecord.RUNNING, runningAt, runningAt,
                ranks.size(), ranks, labels));
        if (succeededAt != null) {
            records.add(new JobRecord(JobRecord.VERSION, uid, name, namespace, JobRecord.SUCCEEDED, succeededAt,
                    runningAt, ranks.size(), ranks, labels));
        }
        return new SimulatedJob(records, traffic);
    }

    /** Ranks of {@code count} pods named as Kubeflow does ({@code job-master-0}, {@code job-worker-N}). */
    public static List<JobRecord.Rank> ranks(String name, List<String> nodes, List<String> devices) {
        List<JobRecord.Rank> out = new ArrayList<>();
        for (int r = 0; r < nodes.size(); r++) {
            String pod = r == 0 ? name + "-master-0" : name + "-worker-" + (r - 1);
            out.add(new JobRecord.Rank(r, pod, nodes.get(r), devices));
        }
        return out;
    }

    /** The same job with one more label on each of its records (e.g. {@code rdmamon.io/transport=socket}). */
    public SimulatedJob withLabel(String key, String value) {
        List<JobRecord> records = lifecycle.stream().map(j -> {
            Map<String, String> labels = new TreeMap<>(j.labels());
            labels.put(key, value);
            return new JobRecord(j.v(), j.uid(), j.job(), j.namespace(), j.state(), j.updatedAt(), j.startedAt(),
                    j.worldSize(), j.ranks(), labels);
        }).toList();
        return new SimulatedJob(records, traffic);
    }

    public JobRecord running() {
        return lifecycle.stream().filter(j -> JobRecord.RUNNING.equals(j.state())).findFirst().orElseThrow();
    }

    public String uid() {
        return running().uid();
    }

    public String name() {
        return running().job();
    }

    /** The traffic model, its noise seeded from the scenario seed and the job's uid. */
    public TrainingTrafficModel model(long seed) {
        return new TrainingTrafficModel(traffic, seed ^ uid().hashCode());
    }
}
