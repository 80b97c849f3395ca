package io.rdmamon.sink;

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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code rdmamon sink}: consumes port samples, host-interface samples, job bandwidth, link health and alerts and
 * writes them to InfluxDB as points of the {@link io.rdmamon.influx.Schema}.
 *
 * <p>Pipelined: this thread polls and converts (line protocol rendered into write requests of
 * {@code influx.batch.max.points}, across polls: each full request body is one batch; a body not full is held while a
 * write is in flight, and written short as soon as a writer is free) while a {@link WritePipeline} writes the batches
 * before it, up to {@code influx.write.concurrency} at once; offsets are committed asynchronously as batches finish,
 * in order, never past a record held.
 *
 * <p>At least once, nothing lost: a batch's offsets are committed only once its points are written and its unreadable
 * records are on the dead-letter topic, and never past a batch still being written. While InfluxDB (or the
 * dead-letter topic) fails, the writer keeps the batch and retries with exponential backoff; the pipeline fills and
 * this thread pauses every partition, still polling so it stays in its consumer group: memory holds at most
 * concurrency + 1 batches and a poll, and a replay after a crash rewrites the same points (same measurement, tags and time), which
 * InfluxDB overwrites.
 */
public final class InfluxSink implements Runnable, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(InfluxSink.class);
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(500);
    /** Poll timeout while batches are being written: their commits wait for the next poll to return. */
    private static final Duration POLL_WHILE_WRITING = Duration.ofMillis(5);
    /** How long a full pipeline is waited on before a poll of the paused consumer keeps the group membership. */
    private static final Duration FULL_WAIT = Duration.ofSeconds(1);
    private static final Duration CLOSE_WRITES_TIMEOUT = Duration.ofSeconds(20);

    private final SinkConfig config;
    private final Consumer<byte[], byte[]> consumer;
    private final InfluxWriter writer;
    private final DeadLetters deadLetters;
    private final RecordRouter router;
    private final SinkMetrics metrics;
    private final KafkaClientMetrics consumerMetrics;
    private final WritePipeline pipeline;
    private final AtomicBoolean started = new AtomicBoolean();
    private final CountDownLatch finished = new CountDownLatch(1);
    private final CommittedPositions committed = new CommittedPositions();
    private volatile boolean closing;
    private volatile boolean paused;

    public InfluxSink(SinkConfig config, MeterRegistry registry) {
        this.config = config;
        this.metrics = new SinkMetrics(registry);
        this.router = new RecordRouter(config, metrics);
        this.writer = new InfluxWriter(config.influx(), metrics);
        this.consumer = new KafkaConsumer<>(config.consumerProps());
        this.consumerMetrics = new KafkaClientMetrics(consumer);
        consumerMetrics.bindTo(registry);
        this.deadLetters = new DeadLetters(new KafkaProducer<>(config.producerProps()), config.deadLetterTopic());
        this.pipeline = new WritePipeline(writer, deadLetters, config.backoff(), metrics, config.writeConcurrency());
    }

    /** Consumes until {@link #close()}; call from one thread. */
    @Override
    public void run() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("the sink runs once");
        }
        log.info("sink: {} -> InfluxDB {} db={} rp={} ({}), {} concurrent write(s)", config.inputTopics(),
                config.influx().url(), config.influx().database(), config.influx().retentionPolicy(),
                config.influx().credentials(), config.writeConcurrency());
        try {
            consumer.subscribe(config.inputTopics(), new PauseNewPartitionsWhileRetrying());
            while (!closing) {
                commitWritten();
                if (router.holding() && pipeline.writerFree()) {
                    // a writer would wait for the body to fill: it is written short now (in a backlog the next
                    // fetch usually fills it while the write before is in flight)
                    pipeline.submit(router.flushHeld());
                }
                if (pipeline.full()) {
                    waitForWrites();
                    continue;
                }
                if (paused) {
                    resume();
                }
                ConsumerRecords<byte[], byte[]> records = consumer.poll(pipeline.idle() ? POLL_TIMEOUT
                        : POLL_WHILE_WRITING);
                router.append(records).forEach(pipeline::submit);
                if (records.isEmpty() && pipeline.idle() && !router.holding()) {
                    commitMarkersReadSince();
                }
            }
        } catch (WakeupException e) {
            if (!closing) {
                throw e;
            }
            log.info("sink stopping; anything not committed is read again on the next start");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            log.info("sink interrupted; anything not committed is read again on the next start");
        } finally {
            try {
                commitOnClose();
            } finally {
                closeResources();
                finished.countDown();
            }
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

    /**
     * The pipeline is full: wait for its oldest batch. A write that takes long (InfluxDB down, the writer in backoff)
     * pauses consumption, and the paused consumer is polled so that it stays in its group (max.poll.interval.ms).
     */
    private void waitForWrites() throws InterruptedException {
        if (pipeline.awaitOldest(FULL_WAIT)) {
            return;
        }
        if (!paused) {
            pause();
        }
        ConsumerRecords<byte[], byte[]> unexpected = consumer.poll(Duration.ZERO);
        // a partition assigned in a rebalance before it could be paused: read again once the writes go on
        for (TopicPartition partition : unexpected.partitions()) {
            consumer.seek(partition, unexpected.records(partition).get(0).offset());
        }
        consumer.pause(consumer.assignment());
    }

    private void pause() {
        paused = true;
        consumer.pause(consumer.assignment());
    }

    private void resume() {
        paused = false;
        consumer.resume(consumer.paused());
    }

    /** Commits, without waiting, the offsets of the batches written since the last call. */
    private void commitWritten() {
        List<RecordRouter.Batch> done = pipeline.takeDone();
        if (!done.isEmpty()) {
            Map<TopicPartition, OffsetAndMetadata> offsets = writtenOffsets(done, true);
            if (!offsets.isEmpty()) {
                consumer.commitAsync(offsets, this::committedAsync);
            }
        }
    }

    /**
     * The offsets to commit after {@code done}, the oldest batches handed back by the pipeline: for each partition,
     * the last batch's next offset, for partitions still assigned; past a transaction marker read since where nothing
     * of the partition is still held or being written ({@code pastMarkers}).
     */
    private Map<TopicPartition, OffsetAndMetadata> writtenOffsets(List<RecordRouter.Batch> done,
                                                                  boolean pastMarkers) {
        Map<TopicPartition, OffsetAndMetadata> owned = new HashMap<>();
        done.forEach(batch -> owned.putAll(batch.offsets()));
        Set<TopicPartition> assigned = consumer.assignment();
        owned.keySet().retainAll(assigned);
        // The stream app writes its topics in transactions: a commit marker follows its last record. The position is
        // past that marker once it has been read; committing it instead of last offset + 1 lets consumer-lag tools
        // show 0, not 1, for a sink that has written everything. Only where no later batch of the partition is still
        // being written (then everything before the position is written), and never behind the batch (max).
        if (pastMarkers) {
            owned.replaceAll((partition, written) -> pipeline.writing(partition) || router.holds(partition) ? written
                    : new OffsetAndMetadata(Math.max(written.offset(), consumer.position(partition))));
        }
        return owned;
    }

    private void committedAsync(Map<TopicPartition, OffsetAndMetadata> offsets, Exception error) {
        if (error == null) {
            committed.committed(offsets);
        } else {
            commitFailed(error);
        }
    }

    private void commitFailed(Exception error) {
        // CommitFailedException, RebalanceInProgressException, timeouts: the points are written: the worst outcome is
        // that another consumer writes them again
        metrics.commitFailure();
        log.warn("offset commit failed ({}); those records will be written again, which is harmless", error.toString());
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
            commitFailed(e);
        }
    }

    /** Stops the writes (waiting for those in progress) and commits what they finished: less to read again. */
    private void commitOnClose() {
        List<RecordRouter.Batch> done = pipeline.close(CLOSE_WRITES_TIMEOUT);
        if (done.isEmpty()) {
            return;
        }
        for (int attempt = 1; attempt <= 2; attempt++) {
            try {
                // the pipeline has dropped the batches not written: whether a partition has one is unknown now, so
                // exactly what is written, not the position
                commitSync(writtenOffsets(done, false));
                return;
            } catch (WakeupException e) {
                // close() woke the consumer outside a poll: the wake-up is spent, the second attempt runs
            } catch (RuntimeException e) {
                log.info("no commit on close ({}); those records are read again on the next start", e.toString());
                return;
            }
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
        writer.close();
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
            // what is written is committed now; batches still being written, and what is held, are the next owner's
            // to write again (held records are written all the same, into the pipeline like any batch: they may
            // belong to partitions this consumer keeps)
            if (router.holding()) {
                pipeline.submit(router.flushHeld());
            }
            List<RecordRouter.Batch> done = pipeline.takeDone();
            if (!done.isEmpty()) {
                commitSync(writtenOffsets(done, true));
            }
            pipeline.forget(partitions);
            committed.forget(partitions);
        }
    }
}
