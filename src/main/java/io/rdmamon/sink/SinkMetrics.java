package io.rdmamon.sink;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The sink's self-metrics (Prometheus names): {@code rdmamon_sink_points_written_total},
 * {@code rdmamon_sink_write_seconds} (one HTTP write), {@code rdmamon_sink_write_failures_total{error}},
 * {@code rdmamon_sink_retries_total}, {@code rdmamon_sink_retrying} (1 while consumption is paused),
 * {@code rdmamon_sink_points_rejected_total} (refused by the server for good), {@code
 * rdmamon_sink_records_total{topic}}, {@code rdmamon_sink_records_dead_lettered_total{topic,reason}},
 * {@code rdmamon_sink_commit_failures_total}. Consumer lag comes from the Kafka client metrics
 * ({@code kafka_consumer_fetch_manager_records_lag_max}).
 */
public final class SinkMetrics {
    private final MeterRegistry registry;
    private final Counter pointsWritten;
    private final Timer writeLatency;
    private final Counter retries;
    private final Counter pointsRejected;
    private final Counter commitFailures;
    private final AtomicInteger retrying = new AtomicInteger();

    public SinkMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.pointsWritten = Counter.builder("rdmamon.sink.points.written")
                .description("points InfluxDB accepted").register(registry);
        this.writeLatency = Timer.builder("rdmamon.sink.write")
                .description("duration of one successful InfluxDB write request").register(registry);
        this.retries = Counter.builder("rdmamon.sink.retries")
                .description("failed writes (InfluxDB or dead-letter topic) that will be retried").register(registry);
        this.pointsRejected = Counter.builder("rdmamon.sink.points.rejected")
                .description("points InfluxDB refused for good (type conflict, beyond retention, unparseable)")
                .register(registry);
        this.commitFailures = Counter.builder("rdmamon.sink.commit.failures")
                .description("offset commits that failed (records will be written again: harmless)")
                .register(registry);
        registry.gauge("rdmamon.sink.retrying", retrying);
    }

    Timer writeLatency() {
        return writeLatency;
    }

    void pointsWritten(int n) {
        pointsWritten.increment(n);
    }

    void pointsRejected(int n) {
        pointsRejected.increment(n);
    }

    void writeFailure(Throwable error) {
        Counter.builder("rdmamon.sink.write.failures").tag("error", error.getClass().getSimpleName())
                .description("failed InfluxDB write requests").register(registry).increment();
    }

    void retry() {
        retries.increment();
    }

    void retrying(boolean paused) {
        retrying.set(paused ? 1 : 0);
    }

    void records(String topic, int n) {
        Counter.builder("rdmamon.sink.records").tag("topic", topic)
                .description("records consumed").register(registry).increment(n);
    }

    /** {@code reason} is a short code ({@link io.rdmamon.model.Rejection}), not the message: the tag stays small. */
    void deadLettered(String topic, String reason) {
        Counter.builder("rdmamon.sink.records.dead.lettered").tag("topic", topic).tag("reason", reason)
                .description("unreadable records sent to the dead-letter topic").register(registry).increment();
    }

    void commitFailure() {
        commitFailures.increment();
    }
}
