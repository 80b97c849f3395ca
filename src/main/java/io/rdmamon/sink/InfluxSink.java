package io.rdmamon.sink;

import io.rdmamon.support.Backoff;
import io.rdmamon.support.CommittedPositions;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.influxdb.InfluxDB;
import org.influxdb.dto.Point;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code rdmamon sink}: consumes port samples, host-interface samples, job bandwidth, link health and alerts and
 * writes them to InfluxDB as points of the {@link io.rdmamon.influx.Schema}.
 *
 * <p>At least once, nothing lost: each poll becomes one batch, written synchronously (in writes of at most
 * {@code influx.batch.max.points}), unreadable records go to the dead-letter topic, and only then are the poll's offsets
 * committed. While InfluxDB (or the dead-letter topic) fails, the sink keeps the batch, pauses every partition and
 * retries with exponential backoff, still polling so it stays in its consumer group: memory holds one poll, and a
 * replay after a crash rewrites the same points (same measurement, tags and time), which InfluxDB overwrites.
 */
public final class InfluxSink implements Runnable, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(InfluxSink.class);
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(500);

    private final SinkConfig config;
    private final Consumer<byte[], byte[]> consumer;
    private final InfluxDB influx;
    private final InfluxWriter writer;
    private final DeadLetters deadLetters;
    private final RecordRouter router;
    private final SinkMetrics metrics;
    private final KafkaClientMetrics consumerMetrics;
    private final Backoff backoff;
    private final AtomicBoolean started = new AtomicBoolean();
    private final CountDownLatch finished = new CountDownLatch(1);
    private final CommittedPositions committed = new CommittedPositions();
    private volatile boolean closing;
    private volatile boolean paused;

    public InfluxSink(SinkConfig config, MeterRegistry registry) {
        this.config = config;
        this.metrics = new SinkMetrics(registry);
        this.backoff = config.backoff();
        this.router = new RecordRouter(config, metrics);
        this.influx = config.influx().connect();
        this.writer = new InfluxWriter(influx, config.influx(), metrics);
        this.consumer = new KafkaConsumer<>(config.consumerProps());
        this.consumerMetrics = new KafkaClientMetrics(consumer);
        consumerMetrics.bindTo(registry);
        this.deadLetters = new DeadLetters(new KafkaProducer<>(config.producerProps()), config.deadLetterTopic());
    }

    /** Consumes until {@link #close()}; call from one thread. */
    @Override
    public void run() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("the sink runs once");
        }
        log.info("sink: {} -> InfluxDB {} db={} rp={} ({})", config.inputTopics(), config.influx().url(),
                config.influx().database(), config.influx().retentionPolicy(), config.influx().credentials());
        try {
            consumer.subscribe(config.inputTopics(), new PauseNewPartitionsWhileRetrying());
            while (!closing) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL_TIMEOUT);
                if (!records.isEmpty()) {
                    RecordRouter.Batch batch = router.route(records);
                    deliver(batch);
                    commit(batch.offsets());
                } else {
                    commitMarkersReadSince();
                }
            }
        } catch (WakeupException | Stopped e) {
            if (!closing) {
                throw e;
            }
            log.info("sink stopping; anything not committed is read again on the next start");
        } finally {
            closeResources();
            finished.countDown();
        }
    }

    /** Stops the loop (from any thread) and waits up to 30 s for it to finish the current write. */
    @Override
    public synchronized void close() {
        boolean first = !closing;
        closing = true;
        if (!started.get()) {
            if (first) {
                closeResources();
            }
            return;
        }
        if (finished.getCount() == 0) {
            return;
        }
        consumer.wakeup();
        try {
            if (!finished.await(30, TimeUnit.SECONDS)) {
                log.warn("sink did not stop within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void deliver(RecordRouter.Batch batch) {
        List<Point> points = batch.points();
        int chunk = config.batchMaxPoints();
        for (int from = 0; from < points.size(); from += chunk) {
            List<Point> part = points.subList(from, Math.min(points.size(), from + chunk));
            retrying("write to InfluxDB", () -> writer.write(part));
        }
        if (!batch.deadLetters().isEmpty()) {
            retrying("send to the dead-letter topic", () -> deadLetters.send(batch.deadLetters()));
        }
    }

    /** Runs {@code action} until it succeeds, pausing consumption between attempts; gives up only on close. */
    private void retrying(String what, Runnable action) {
        for (int attempt = 1; ; attempt++) {
            try {
                action.run();
                if (attempt > 1) {
                    log.info("{} succeeded after {} attempts; resuming consumption", what, attempt);
                    resume();
                }
                return;
            } catch (RetriableException e) {
                metrics.retry();
                if (attempt == 1) {
                    pause();
                }
                Duration delay = backoff.delay(attempt);
                log.warn("{} failed (attempt {}): {}; retrying in {} ms, consumption paused", what, attempt,
                        e.getMessage(), delay.toMillis());
                waitPaused(delay);
            }
        }
    }

    private void pause() {
        paused = true;
        metrics.retrying(true);
        consumer.pause(consumer.assignment());
    }

    private void resume() {
        paused = false;
        metrics.retrying(false);
        consumer.resume(consumer.paused());
    }

    /**
     * Waits by polling the paused consumer, which keeps the group membership (max.poll.interval.ms) alive. Should a
     * poll still return records (a partition assigned in a rebalance before it could be paused), they are rewound.
     */
    private void waitPaused(Duration delay) {
        long deadline = System.nanoTime() + delay.toNanos();
        long remaining;
        while (!closing && (remaining = deadline - System.nanoTime()) > 0) {
            ConsumerRecords<byte[], byte[]> unexpected = consumer.poll(Duration.ofNanos(remaining));
            for (TopicPartition partition : unexpected.partitions()) {
                consumer.seek(partition, unexpected.records(partition).get(0).offset());
            }
            consumer.pause(consumer.assignment());
        }
        if (closing) {
            throw new Stopped();
        }
    }

    private void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        Map<TopicPartition, OffsetAndMetadata> owned = new HashMap<>(offsets);
        owned.keySet().retainAll(consumer.assignment());
        // The stream app writes its topics in transactions: a commit marker follows its last record. The position is
        // past that marker once it has been read; committing it instead of last offset + 1 lets consumer-lag tools
        // show 0, not 1, for a sink that has written everything. It is never behind the batch (max), and records
        // polled but not written were rewound, so nothing unwritten is committed.
        owned.replaceAll((partition, written) ->
                new OffsetAndMetadata(Math.max(written.offset(), consumer.position(partition))));
        commitSync(owned);
    }

    /**
     * A transaction marker may arrive in a fetch of its own, after the batch it closes was written: an empty poll then
     * moves the position past it, and that position is committed.
     */
    private void commitMarkersReadSince() {
        Map<TopicPartition, OffsetAndMetadata> moved = committed.movedOn(consumer);
        if (!moved.isEmpty()) {
            commitSync(moved);
        }
    }

    private void commitSync(Map<TopicPartition, OffsetAndMetadata> owned) {
        try {
            consumer.commitSync(owned);
            committed.committed(owned);
        } catch (WakeupException e) {
            throw e;
        } catch (KafkaException e) {
            // CommitFailedException, RebalanceInProgressException, timeouts: the points are written: the worst outcome is that another consumer writes them again
            metrics.commitFailure();
            log.warn("offset commit failed ({}); those records will be written again, which is harmless",
                    e.toString());
        }
    }

    private void closeResources() {
        consumerMetrics.close();
        try {
            consumer.close();
        } catch (RuntimeException e) {
            log.warn("closing the consumer: {}", e.toString());
        }
        deadLetters.close();
        influx.close();
    }

    /** Partitions assigned while the sink is paused must stay paused, or a poll would fetch past the kept batch. */
    private final class PauseNewPartitionsWhileRetrying implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (paused) {
                consumer.pause(partitions);
            }
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            // nothing to flush: offsets are committed right after each batch is written
            committed.forget(partitions);
        }
    }

    /** Thrown out of a retry wait when the sink is closed. */
    private static final class Stopped extends RuntimeException {
        Stopped() {
            super(null, null, false, false);
        }
    }
}
