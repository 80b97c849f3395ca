package io.rdmamon.collector.publish;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the buffer had to give up: counted at once, and said in the log at most once a minute (a long outage drops
 * a record per sample, which must not flood the log). Used under the buffer's lock.
 */
final class DroppedRecords {
    private static final Logger log = LoggerFactory.getLogger(DroppedRecords.class);
    private static final long LOG_INTERVAL_MS = 60_000;

    private final PublishMetrics metrics;
    private final String bounds;
    private long sinceLastReport;
    private long lastReportMs;

    DroppedRecords(PublishMetrics metrics, long memoryMaxBytes, long spillMaxBytes) {
        this.metrics = metrics;
        this.bounds = "memory " + memoryMaxBytes + " bytes, spill " + spillMaxBytes + " bytes";
    }

    void add(long records) {
        metrics.dropped(records);
        sinceLastReport += records;
        report(false);
    }

    /** Logs what was dropped since the last report: now, or only when a report is due. */
    void report(boolean now) {
        long nowMs = System.currentTimeMillis();
        if (sinceLastReport > 0 && (now || nowMs - lastReportMs >= LOG_INTERVAL_MS)) {
            log.warn("buffer full ({}) or spill file unusable: dropped the {} oldest records since the last report",
                    bounds, sinceLastReport);
            sinceLastReport = 0;
            lastReportMs = nowMs;
        }
    }
}
