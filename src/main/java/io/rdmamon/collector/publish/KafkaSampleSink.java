package io.rdmamon.collector.publish;

import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.collector.SampleSink;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import io.rdmamon.access.KafkaAccess;
import io.rdmamon.access.RoleAcl;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.resource.ResourceType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The collector's Kafka output. {@link #publish} only puts the record in a bounded {@link SampleBuffer} (memory,
 * then a spill file) and returns; a sender thread of its own hands records to an idempotent producer, at most an
 * in-flight window at a time, so that neither a dead broker nor a metadata fetch ever stalls the sampling loop.
 *
 * <p>Delivery: in order per key, each record once. The producer retries a record for ever (idempotence makes the
 * retries safe); a send refused before it reached the producer (topic metadata not available) is sent again before
 * anything newer; a record refused for good (too large, not authorized...) is logged with its topic and key,
 * counted, and skipped, so one bad record never blocks the rest. Every record is also appended to the spill log, which
 * a thread of its own writes and fsyncs every {@code collector.buffer.flush.interval.ms} together with the mark of
 * what Kafka acknowledged: the next sink on the same directory, after a {@link #close} or a crash, sends first what
 * was not acknowledged.
 */
public final class KafkaSampleSink implements SampleSink {
    private static final Logger log = LoggerFactory.getLogger(KafkaSampleSink.class);
    private static final long POLL_MS = 100;
    private static final long RETRY_BACKOFF_MS = 500;
    private static final long WARN_INTERVAL_MS = 30_000;
    private static final long THREAD_EXIT_MS = 5_000;
    private static final long STALL_WARN_MS = 30_000;

    private final PublishMetrics metrics;
    private final SampleBuffer buffer;
    private final Producer<String, byte[]> producer;
    private final long closeTimeoutMs;
    private final Thread sender;
    private final ScheduledExecutorService flusher;
    private final CountDownLatch closeRequested = new CountDownLatch(1);
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong lastRetryWarnMs = new AtomicLong();
    private final AtomicLong lastRefusedWarnMs = new AtomicLong();
    private final KafkaAccess access;
    /** Why Kafka refuses the records (credentials, ACL) since the last acknowledgement; null while it takes them. */
    private volatile String refused;
    private volatile boolean closing;
    private volatile long drainDeadlineNanos;
    private boolean sendRefused;
    private long lastStallWarnMs;

    public KafkaSampleSink(PublishConfig config, MeterRegistry registry) {
        this.metrics = new PublishMetrics(registry);
        this.closeTimeoutMs = config.closeTimeoutMs();
        SpillLog spill = openSpill(config);
        this.buffer = new SampleBuffer(config.memoryBytes(), config.inFlightBytes(), spill, config.spillBytes(),
                metrics);
        try {
            this.producer = new KafkaProducer<>(config.producerSettings());
        } catch (RuntimeException e) {
            buffer.close();
            throw e;
        }
        // a collector writes the topics it is given: WRITE is what a refusal of one of them lacks
        this.access = KafkaAccess.of(config.producerSettings(), List.of(RoleAcl.prefixed(ResourceType.TOPIC,
                AclOperation.WRITE, "")));
        metrics.bindBuffer(buffer, SampleBuffer::records, SampleBuffer::bytes, b -> b.isDegraded() ? 1 : 0);
        metrics.bindRefused(this, sink -> sink.refused == null ? 0 : 1);
        log.info("publishing to Kafka: {}; buffer: memory {} bytes, spill log {} ({} bytes, flushed every {} ms)",
                config.describeProducer(), config.memoryBytes(), spill == null ? "off" : spill.dir(),
                config.spillBytes(), config.flushIntervalMs());
        this.flusher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rdmamon-spill-flush");
            t.setDaemon(true);
            return t;
        });
        if (spill != null) {
            flusher.scheduleWithFixedDelay(this::flush, config.flushIntervalMs(), config.flushIntervalMs(),
                    TimeUnit.MILLISECONDS);
        }
        this.sender = new Thread(this::sendLoop, "rdmamon-kafka-sender");
        sender.setDaemon(true);
        sender.start();
    }

    private static SpillLog openSpill(PublishConfig config) {
        if (config.spillBytes() == 0) {
            return null;
        }
        long segmentBytes = Math.max(64 * 1024, Math.min(16L * 1024 * 1024, config.spillBytes() / 16));
        try {
            return SpillLog.open(config.spillPath(), segmentBytes, PublishConfig.SPILL_PATH_CONFIG);
        } catch (IOException e) {
            log.error("cannot use spill directory {} ({}: {}): buffering in memory only, records beyond {} bytes "
                            + "will be dropped while Kafka is unreachable", config.spillPath(), e.getClass().getSimpleName(),
                    e.getMessage(), config.memoryBytes());
            return null;
        }
    }

    private void flush() {
        try {
            buffer.sync();
        } catch (RuntimeException e) {
            // a bug must not stop the flush clock: records would silently stop being crash-safe
            log.error("unexpected error flushing the spill log; going on", e);
        }
    }

    /** Never blocks on Kafka: the record is buffered (or, beyond the bounds, the oldest buffered record dropped). */
    @Override
    public void publish(String topic, String key, long timestampMs, byte[] value) {
        PendingRecord record = new PendingRecord(topic, key, timestampMs, value, System.currentTimeMillis());
        if (!buffer.add(record)) {
            log.warn("record for {} key {} published after close: dropped", topic, key);
        }
    }

    private void sendLoop() {
        while (!closing || (!buffer.isSettled() && System.nanoTime() < drainDeadlineNanos)) {
            boolean backOff;
            try {
                backOff = sendNext();
            } catch (RuntimeException e) {
                // a bug must not leave the buffer without a sender: the collector would silently fill it up
                log.error("unexpected error in the Kafka sender; going on", e);
                backOff = true;
            }
            try {
                // Kafka is unreachable: wait before trying again; on close, what is left goes to the spill file
                if (backOff && (closing || closeRequested.await(RETRY_BACKOFF_MS, TimeUnit.MILLISECONDS))) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Sends the next record if one comes within the poll time; true when Kafka could not take it for now. */
    private boolean sendNext() {
        SampleBuffer.Claim claim = buffer.take(POLL_MS);
        if (claim == null) {
            warnIfStalled();
            return false;
        }
        sendRefused = false;
        send(claim);
        // while Kafka refuses the credentials or an ACL, one record at a time probes until it takes them again
        return sendRefused || refused != null;
    }

    private void send(SampleBuffer.Claim claim) {
        PendingRecord record = claim.record();
        long seq = claim.seq();
        try {
            producer.send(new ProducerRecord<>(record.topic(), null, record.timestampMs(), record.key(),
                    record.value()), (metadata, error) -> {
                if (error == null) {
                    acked(seq);
                } else {
                    failed(seq, error);
                }
            });
        } catch (KafkaException | IllegalStateException e) {
            failed(seq, e);
        }
    }

    private void acked(long seq) {
        PendingRecord record = buffer.settle(seq);
        if (record != null) {
            metrics.published(record, System.currentTimeMillis());
        }
        if (refused != null) {
            log.info("Kafka takes the records again; {} buffered", buffer.records());
            refused = null;
        }
    }

    /**
     * A failure seen on the sender thread happened inside {@code send()}, before the producer took the record: nothing
     * newer was handed over, so sending it again keeps the order.
     */
    private void failed(long seq, Throwable error) {
        boolean beforeProducer = Thread.currentThread() == sender;
        // wrong credentials or a missing ACL refuse every record alike until an operator fixes them: keep them all
        String refusal = access.describe(error).orElse(null);
        boolean refusedForGood = refusal == null && error instanceof ApiException && !sendAgain(error);
        if (!refusedForGood && beforeProducer) {
            sendRefused = true;
        }
        if (closing && !refusedForGood) {
            return; // the producer is closing: the record stays in flight and is written to the spill file
        }
        if (refusal != null) {
            buffer.requeue(seq);
            metrics.error(PublishMetrics.KIND_REFUSED, error);
            refused = refusal;
            warnRefused(refusal);
            return;
        }
        if (sendAgain(error)) {
            buffer.requeue(seq);
            metrics.error(PublishMetrics.KIND_RETRIED, error);
            warnRetry(error, beforeProducer);
            return;
        }
        PendingRecord record = buffer.settle(seq);
        metrics.error(PublishMetrics.KIND_REJECTED, error);
        if (record != null) {
            log.error("Kafka refused a record for good, skipping it: topic {} key {} ({} bytes): {}: {}",
                    record.topic(), record.key(), record.value().length, error.getClass().getSimpleName(),
                    error.getMessage());
        }
    }

    /**
     * Errors after which the broker holds no copy of the record: passing ones, and the idempotent producer's sequence
     * out of step with the broker's (unknown producer id included; the producer starts a new sequence), so sending
     * it again cannot duplicate it.
     */
    private static boolean sendAgain(Throwable error) {
        return error instanceof RetriableException || error instanceof OutOfOrderSequenceException;
    }

    /** With the topic's metadata at hand, a dead broker raises no error: the records just wait in flight. */
    private void warnIfStalled() {
        long now = System.currentTimeMillis();
        long stalledMs = buffer.millisWithoutProgress(now);
        if (stalledMs >= STALL_WARN_MS && now - lastStallWarnMs >= WARN_INTERVAL_MS) {
            lastStallWarnMs = now;
            log.warn("no acknowledgement from Kafka for {} s (broker unreachable or partitions unavailable); holding "
                    + "{} records ({} bytes)", stalledMs / 1000, buffer.records(), buffer.bytes());
        }
    }

    private void warnRetry(Throwable error, boolean beforeProducer) {
        long now = System.currentTimeMillis();
        long last = lastRetryWarnMs.get();
        if (now - last >= WARN_INTERVAL_MS && lastRetryWarnMs.compareAndSet(last, now)) {
            log.warn("cannot send to Kafka ({}: {}){}; holding {} records ({} bytes) and retrying",
                    error.getClass().getSimpleName(), error.getMessage(),
                    beforeProducer ? "" : " after the producer gave up: order per key may not hold for it",
                    buffer.records(), buffer.bytes());
        }
    }

    private void warnRefused(String refusal) {
        long now = System.currentTimeMillis();
        long last = lastRefusedWarnMs.get();
        if (now - last >= WARN_INTERVAL_MS && lastRefusedWarnMs.compareAndSet(last, now)) {
            log.error("{}; holding {} records ({} bytes) and retrying, not ready meanwhile", refusal,
                    buffer.records(), buffer.bytes());
        }
    }

    /** Why the collector is not ready: Kafka refuses its credentials or an ACL (its records are kept meanwhile). */
    public Optional<String> notReady() {
        return Optional.ofNullable(refused);
    }

    /** Sum of a producer metric over the entries of {@code group} whose tags include {@code tags} (benchmark). */
    public double producerMetric(String group, String name, Map<String, String> tags) {
        return producer.metrics().entrySet().stream()
                .filter(e -> e.getKey().group().equals(group) && e.getKey().name().equals(name)
                        && e.getKey().tags().entrySet().containsAll(tags.entrySet()))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }

    public long bufferedRecords() {
        return buffer.records();
    }

    /**
     * Sends what it can within {@code collector.publish.close.timeout.ms}, then writes what is left (in flight
     * included) to the spill file, in order.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        long start = System.nanoTime();
        drainDeadlineNanos = start + TimeUnit.MILLISECONDS.toNanos(closeTimeoutMs);
        closing = true;
        closeRequested.countDown();
        buffer.wakeUp();
        try {
            sender.join(Math.max(1, closeTimeoutMs));
            long leftMs = Math.max(0, closeTimeoutMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            producer.close(Duration.ofMillis(leftMs));
            sender.join(THREAD_EXIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (sender.isAlive()) {
            log.warn("Kafka sender thread did not stop within {} ms", THREAD_EXIT_MS);
        }
        flusher.shutdownNow();
        try {
            if (!flusher.awaitTermination(THREAD_EXIT_MS, TimeUnit.MILLISECONDS)) {
                log.warn("spill flush thread did not stop within {} ms", THREAD_EXIT_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        buffer.close();
        metrics.unbindBuffer();
    }
}
