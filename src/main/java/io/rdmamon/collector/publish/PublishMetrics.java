package io.rdmamon.collector.publish;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/** The Kafka output's self-metrics, as the collector exposes them on /metrics. */
public final class PublishMetrics {
    static final String PUBLISHED = "rdmamon.collector.records.published";
    public static final String LATENCY = "rdmamon.collector.publish.latency";
    static final String BUFFERED_RECORDS = "rdmamon.collector.buffered.records";
    static final String BUFFERED_BYTES = "rdmamon.collector.buffered.bytes";
    public static final String SPILLED = "rdmamon.collector.spilled.records";
    static final String DROPPED = "rdmamon.collector.dropped.records";
    static final String ERRORS = "rdmamon.collector.publish.errors";
    static final String SPILL_ERRORS = "rdmamon.collector.spill.errors";
    static final String SPILL_DAMAGED = "rdmamon.collector.spill.damaged.segments";
    static final String SPILL_DEGRADED = "rdmamon.collector.spill.degraded";
    public static final String KAFKA_REFUSED = "rdmamon.collector.kafka.refused";

    /** A record Kafka refused for good (too large, not authorized...): logged, counted, not retried. */
    static final String KIND_REJECTED = "rejected";
    /** A send that failed for a reason that may pass (broker or topic unavailable): the record is sent again. */
    static final String KIND_RETRIED = "retried";
    /** Kafka refused the credentials or an ACL: the record is kept and sent again, as every other one. */
    static final String KIND_REFUSED = "refused";

    private final MeterRegistry registry;
    private final Counter spilled;
    private final Counter dropped;
    private final Map<String, TopicMeters> byTopic = new ConcurrentHashMap<>();
    private List<Gauge> gauges = List.of();

    PublishMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.spilled = Counter.builder(SPILLED).description("Records kept on disk only (in the spill log) because "
                + "the memory buffer was full, or left there for the next start at close").register(registry);
        this.dropped = Counter.builder(DROPPED).description("Records dropped, oldest first, because memory and spill "
                + "file were full (or the spill file was unreadable)").register(registry);
    }

    <T> void bindBuffer(T buffer, ToDoubleFunction<T> records, ToDoubleFunction<T> bytes,
                        ToDoubleFunction<T> degraded) {
        gauges = List.of(
                Gauge.builder(SPILL_DEGRADED, buffer, degraded).strongReference(true)
                        .description("1 while the spill directory cannot be written (disk full, read-only): memory "
                                + "only, a crash loses what is buffered").register(registry),
                Gauge.builder(BUFFERED_RECORDS, buffer, records).strongReference(true)
                        .description("Records not yet acknowledged by Kafka (memory, in flight and spill file)")
                        .register(registry),
                Gauge.builder(BUFFERED_BYTES, buffer, bytes).strongReference(true).baseUnit("bytes")
                        .description("Bytes of the records not yet acknowledged by Kafka").register(registry));
    }

    <T> void bindRefused(T sink, ToDoubleFunction<T> refused) {
        List<Gauge> all = new ArrayList<>(gauges);
        all.add(Gauge.builder(KAFKA_REFUSED, sink, refused).strongReference(true).description("1 while Kafka refuses "
                + "the collector's credentials or an ACL (records kept and retried; /ready answers 503)")
                .register(registry));
        gauges = List.copyOf(all);
    }

    /** Removes the gauges, so that a sink opened later on the same registry reports its own buffer. */
    void unbindBuffer() {
        gauges.forEach(registry::remove);
        gauges = List.of();
    }

    void published(PendingRecord record, long nowMs) {
        TopicMeters meters = byTopic.computeIfAbsent(record.topic(), topic -> new TopicMeters(
                Counter.builder(PUBLISHED).description("Records acknowledged by Kafka").tag("topic", topic)
                        .register(registry),
                Timer.builder(LATENCY).description("From publish() to Kafka's acknowledgement").tag("topic", topic)
                        .register(registry)));
        meters.published().increment();
        meters.latency().record(Duration.ofMillis(Math.max(0, nowMs - record.publishedAtMs())));
    }

    private record TopicMeters(Counter published, Timer latency) {
    }

    void spilled(long records) {
        spilled.increment(records);
    }

    /** A torn or unreadable spill segment: its damaged part was cut off or set aside. */
    void spillDamaged(long segments) {
        Counter.builder(SPILL_DAMAGED).description("Spill segments found torn (cut off after the last intact record) "
                + "or unreadable (set aside as *.corrupt)").register(registry).increment(segments);
    }

    /** The spill directory could not be written or fsynced ({@code op}); the buffer went on in memory. */
    void spillError(String op) {
        Counter.builder(SPILL_ERRORS).description("Failed writes or fsyncs of the spill directory (the buffer then "
                + "runs in memory only for a while)").tag("op", op.split(" ")[0]).register(registry).increment();
    }

    void dropped(long records) {
        dropped.increment(records);
    }

    void error(String kind, Throwable error) {
        Counter.builder(ERRORS).description("Sends that failed: kind=rejected (record given up), retried, "
                        + "or refused (credentials or ACL; kept and retried)")
                .tag("kind", kind).tag("error", error.getClass().getSimpleName()).register(registry).increment();
    }
}
