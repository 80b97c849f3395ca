package io.rdmamon.sink;

import io.rdmamon.model.JobBandwidth;
import io.rdmamon.model.JobBandwidth.RankBandwidth;


import static io.rdmamon.influx.Schema.*;

/**
 * {@link JobBandwidth} → one {@code job_bandwidth} point plus one {@code job_rank_bandwidth} point per rank, all at
 * the window's start (Grafana buckets are labelled by their start too).
 */
final class JobBandwidthPoints implements PointConverter<JobBandwidth> {

    @Override
    public Class<JobBandwidth> type() {
        return JobBandwidth.class;
    }

    @Override
    public void render(JobBandwidth b, PointLines points) {
        PointConverter.checkVersion(b.v(), JobBandwidth.VERSION);
        PointConverter.required(b.uid(), "uid");
        PointConverter.requiredTime(b.windowStart(), "windowStart");
        if (b.windowEnd() < b.windowStart()) {
            throw new IllegalArgumentException("windowEnd " + b.windowEnd() + " before windowStart " + b.windowStart());
        }
        SchemaPoint.of(JOB_BANDWIDTH, b.windowStart())
                .tag(JOB, b.job()).tag(NAMESPACE, b.namespace()).tag(JOB_UID, b.uid())
                .field(TX_BYTES_PER_SEC, b.txBytesPerSec())
                .field(RX_BYTES_PER_SEC, b.rxBytesPerSec())
                .field(BYTES_PER_SEC, b.txBytesPerSec() + b.rxBytesPerSec())
                .field(WINDOW_SECONDS, (b.windowEnd() - b.windowStart()) / 1000.0)
                .field(RANKS_REPORTING, (long) b.ranksReporting())
                .field(RANKS_EXPECTED, (long) b.ranksExpected())
                .field(RANK_MIN_BYTES_PER_SEC, b.rankMinBytesPerSec())
                .field(RANK_MEDIAN_BYTES_PER_SEC, b.rankMedianBytesPerSec())
                .field(RANK_MAX_BYTES_PER_SEC, b.rankMaxBytesPerSec())
                .field(ESTIMATED, b.estimated())
                .field(HOST_BYTES_PER_SEC, b.hostBytesPerSec())
                .field(RDMA_SHARE, b.rdmaShare())
                .field(NIC_BYTES_PER_SEC, b.nicBytesPerSec())
                .field(EXPECTED_NIC_BYTES_PER_SEC, b.expectedNicBytesPerSec())
                .addTo(points);
        for (RankBandwidth r : b.ranks()) {
            SchemaPoint.of(JOB_RANK_BANDWIDTH, b.windowStart())
                    .tag(JOB, b.job()).tag(NAMESPACE, b.namespace()).tag(JOB_UID, b.uid())
                    .tag(RANK, r.rank()).tag(NODE, r.node())
                    .field(TX_BYTES_PER_SEC, r.txBytesPerSec())
                    .field(RX_BYTES_PER_SEC, r.rxBytesPerSec())
                    .field(BYTES_PER_SEC, r.txBytesPerSec() + r.rxBytesPerSec())
                    .field(SHARE, r.share())
                    .field(ESTIMATED, r.estimated())
                    .addTo(points);
        }
    }
}
