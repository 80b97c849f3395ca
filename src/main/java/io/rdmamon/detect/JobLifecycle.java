package io.rdmamon.detect;

import io.rdmamon.model.JobRecord;

import java.util.stream.Collectors;

/** What a job's own record means to a job-level detector: ended, or restarted since the state was made. */
final class JobLifecycle {
    private JobLifecycle() {
    }

    static boolean ended(JobRecord job) {
        return JobRecord.SUCCEEDED.equals(job.state()) || JobRecord.FAILED.equals(job.state())
                || JobRecord.DELETED.equals(job.state());
    }

    /**
     * A Running record of a job that ended at {@code endedAt} (null: has not) or ran as {@code generation} (null: not
     * known yet) is a restart when it came after the end, or with other pods ({@link #generation}).
     */
    static boolean restarted(JobRecord running, Long endedAt, String generation) {
        return endedAt != null && running.updatedAt() > endedAt
                || generation != null && !generation.equals(generation(running));
    }

    /** The job's ranks and pods: a change means the job was restarted and its baselines no longer apply. */
    static String generation(JobRecord job) {
        return job.ranks().stream().map(r -> r.rank() + "@" + r.pod() + "@" + r.node()).sorted()
                .collect(Collectors.joining(","));
    }
}
