package io.rdmamon.detect;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import io.rdmamon.jobs.Holder;

import java.util.Map;
import java.util.TreeMap;

/**
 * One job's activity as {@link StallDetector} follows it. Mutable on purpose: it is read, updated and written back
 * once per event, and holds no per-port map, so its size does not grow with the job: per-second counts of reporting
 * and active ports for the last few seconds ({@link JobSeconds}), the last time the job as a whole had traffic, and
 * per node the newest sample (to tell a silent collector from a quiet job).
 */
@JsonAutoDetect(fieldVisibility = Visibility.ANY, getterVisibility = Visibility.NONE,
        isGetterVisibility = Visibility.NONE)
final class StallState {
    enum Phase { STARTING, ACTIVE, SUSPECT, STALLED, ENDED }

    String uid;
    String job;
    String namespace;
    /** The job's ranks and pods; a change means the job was restarted and its baselines no longer apply. */
    String generation;
    Phase phase = Phase.STARTING;
    Long firstTrafficAt;
    long activeMs;
    /** Newest sample time of the job's exclusive ports: the job's own clock. */
    long now;
    /** The sampling interval, as the newest settled second says. */
    long intervalMs = 1_000;
    /** The job's traffic second by second: settled, and as far as known. */
    JobSeconds seconds = new JobSeconds();
    /** The job's last traffic in a settled second: where the quiet being learned began. */
    Long settledActiveAt;
    /** The job's last traffic as far as known now (open seconds included): where the quiet being watched began. */
    Long lastActiveAt;
    /** The job's record says it runs over sockets: its ports are host interfaces that carry other traffic too. */
    boolean socket;
    Map<String, Long> nodeLastSeen = new TreeMap<>();
    /** Usual tx+rx per host interface (node/iface) while RDMA is busy (EWMA). */
    Map<String, Double> hostBaseline = new TreeMap<>();
    /** Last time a host interface was busy while RDMA was quiet. */
    Long hostHintAt;
    Long stalledSince;
    Long endedAt;
    QuietHistory history = new QuietHistory();
    /** The job's GPUs, when their samples reach it (rdma.gpu-samples). */
    GpuActivity gpus = new GpuActivity();

    static StallState of(String uid, String job, String namespace) {
        StallState s = new StallState();
        s.uid = uid;
        s.job = job;
        s.namespace = namespace;
        return s;
    }

    static StallState of(Holder holder) {
        return of(holder.uid(), holder.job(), holder.namespace());
    }

    Subject subject() {
        return new Subject(uid, job, namespace, null, null, null);
    }
}
