package io.rdmamon.streams;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The Kafka record timestamp as a cross-check of a record's own time ({@code ts}, {@code updatedAt}). rdmamon judges
 * by the payload's time whatever the record timestamp says, so a producer that stamps the time of sending (kcat, a
 * bridge, a replay of a backlog) or a topic with {@code message.timestamp.type=LogAppendTime} changes no result; but
 * a large difference says something about the producers an operator may want to know, and it shows on
 * {@code rdmamon_streams_record_timestamp_skew_seconds{topic}} (record timestamp minus the record's own time) and
 * in one warning per topic.
 */
final class RecordTimestampSkew {
    /** A difference beyond this is worth a warning: more than collectors' buffering and clock error explain. */
    static final Duration WARN_BEYOND = Duration.ofMinutes(5);
    private static final Logger log = LoggerFactory.getLogger(RecordTimestampSkew.class);

    private final String topic;
    private final DistributionSummary skew;
    private final AtomicBoolean warned = new AtomicBoolean();

    RecordTimestampSkew(MeterRegistry registry, String topic) {
        this.topic = topic;
        this.skew = DistributionSummary.builder("rdmamon.streams.record.timestamp.skew").baseUnit("seconds")
                .description("Kafka record timestamp minus the record's own time (ts, updatedAt); the app judges by "
                        + "the latter, so this only describes the producers")
                .tag("topic", topic).register(registry);
    }

    /**
     * One decoded record: {@code recordTimestamp} as read (not positive: none), {@code eventTime} its own time.
     * Returns true the first time the two are far apart: the caller then {@link #warn}s, with where the record is.
     */
    boolean observe(long recordTimestamp, long eventTime) {
        if (recordTimestamp <= 0) {
            return false;
        }
        long differenceMs = recordTimestamp - eventTime;
        skew.record(differenceMs / 1000.0);
        return Math.abs(differenceMs) > WARN_BEYOND.toMillis() && warned.compareAndSet(false, true);
    }

    void warn(long recordTimestamp, long eventTime, String key, int partition, long offset) {
        long differenceMs = recordTimestamp - eventTime;
        log.warn("records on {} carry Kafka timestamps far from their own time: key {} (partition {}, offset {}) is "
                        + "stamped {} {} its own; its producer stamps the time of sending, or the topic uses "
                        + "LogAppendTime. Results are unaffected: rdmamon judges by the records' own times. Once per "
                        + "topic; the difference is rdmamon_streams_record_timestamp_skew_seconds", topic, key,
                partition, offset, roughly(Math.abs(differenceMs)), differenceMs > 0 ? "after" : "before");
    }

    /** 330 days, 5 hours, 12 minutes: the largest unit that gives a whole number above one. */
    static String roughly(long ms) {
        Duration d = Duration.ofMillis(ms);
        if (d.toDays() >= 2) {
            return d.toDays() + " days";
        }
        if (d.toHours() >= 2) {
            return d.toHours() + " hours";
        }
        return d.toMinutes() >= 2 ? d.toMinutes() + " minutes" : d.toSeconds() + " s";
    }
}
