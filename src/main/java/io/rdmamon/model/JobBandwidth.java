package io.rdmamon.model;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.List;

/**
 * A job's RDMA bandwidth over one event-time window: topic {@link Topics#JOB_BANDWIDTH}, key = job uid.
 * Bytes per second are averaged over the window. {@code estimated} is true when any of the job's devices was shared
 * with another running job in the window: its bytes were split by the documented rule, not measured.
 * {@code hostBytesPerSec} is the tx + rx of the host interfaces of the job's nodes (TCP, storage; a node shared with
 * another job counts for both) and {@code rdmaShare} the RDMA part of all the job's bytes, RDMA / (RDMA + host); both
 * null when no host interface of its nodes reported in the window (and the share when the job moved nothing at all).
 * {@code nicBytesPerSec} is what one of the job's NICs carried: the busier direction of each measured port, averaged
 * over them; {@code expectedNicBytesPerSec} the figure the operator expects of such a NIC
 * ({@code streams.nic.expected.*}), null when not configured for all of them. Both added in issue 11, {@code v}
 * unchanged.
 */
@JsonPropertyOrder({"v", "uid", "job", "namespace", "windowStart", "windowEnd", "txBytesPerSec", "rxBytesPerSec",
        "ranksReporting", "ranksExpected", "rankMinBytesPerSec", "rankMedianBytesPerSec", "rankMaxBytesPerSec",
        "estimated", "ranks", "hostBytesPerSec", "rdmaShare", "nicBytesPerSec", "expectedNicBytesPerSec"})
public record JobBandwidth(
        int v,
        String uid,
        String job,
        String namespace,
        long windowStart,
        long windowEnd,
        double txBytesPerSec,
        double rxBytesPerSec,
        int ranksReporting,
        int ranksExpected,
        Double rankMinBytesPerSec,
        Double rankMedianBytesPerSec,
        Double rankMaxBytesPerSec,
        boolean estimated,
        List<RankBandwidth> ranks,
        Double hostBytesPerSec,
        Double rdmaShare,
        Double nicBytesPerSec,
        Double expectedNicBytesPerSec) {

    public static final int VERSION = 1;

    public JobBandwidth {
        ranks = ranks == null ? List.of() : ranks;
    }

    /**
     * One rank's traffic in the window (tx + rx over all its devices) and its share of the job's total; {@code share}
     * is null when the job moved no bytes in the window (a share of nothing is unknown, not 0). {@code estimated} is
     * true when the rank's bytes were split from a device it shares (with another job, or with other ranks of its job).
     */
    public record RankBandwidth(int rank, String node, double txBytesPerSec, double rxBytesPerSec, Double share,
                                boolean estimated) {
    }
}
