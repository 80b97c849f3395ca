package io.rdmamon.sink;

import io.rdmamon.support.Backoff;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writes the sink's batches on writer threads while the consuming thread polls and converts the next ones: up to
 * {@code concurrency} batches in write requests at once and one more converted and waiting, so that InfluxDB always
 * has the next request as soon as it answers one. A batch is done when all its bodies are written (or refused for
 * good) and its dead letters are on their topic; batches are handed back done <em>in the order they were
 * submitted</em>, so committing each one's offsets never commits past a batch still being written.
 *
 * <p>A failing write is retried by its writer with exponential backoff, forever, keeping the batch: the pipeline stays
 * full, {@link #full()} stays true and the consuming thread pauses consumption. Only {@link #close()} ends the retries;
 * batches not done then are not handed back, and their records are read again on the next start.
 *
 * <p>{@link #submit}, {@link #full}, {@link #writerFree}, {@link #idle}, {@link #takeDone} and {@link #forget} belong
 * to the consuming thread.
 */
public final class WritePipeline implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WritePipeline.class);

    /** A submitted batch and whether it is written. */
    record Job(RecordRouter.Batch batch, CompletableFuture<Void> done) {
    }

    private final InfluxWriter writer;
    private final DeadLetters deadLetters;
    private final Backoff backoff;
    private final SinkMetrics metrics;
    private final int capacity;
    private final ExecutorService writers;
    private final Deque<Job> pending = new ArrayDeque<>();
    private final CountDownLatch closed = new CountDownLatch(1);
    private final AtomicInteger failing = new AtomicInteger();

    WritePipeline(InfluxWriter writer, DeadLetters deadLetters, Backoff backoff, SinkMetrics metrics,
                  int concurrency) {
        this.writer = writer;
        this.deadLetters = deadLetters;
        this.backoff = backoff;
        this.metrics = metrics;
        this.capacity = concurrency + 1;
        AtomicInteger threads = new AtomicInteger();
        this.writers = Executors.newFixedThreadPool(concurrency, task -> {
            Thread thread = new Thread(task, "sink-writer-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** A pipeline for batches without dead letters ({@code bench sink}'s write path). */
    public static WritePipeline withoutDeadLetters(InfluxWriter writer, Backoff backoff, SinkMetrics metrics,
                                                   int concurrency) {
        return new WritePipeline(writer, null, backoff, metrics, concurrency);
    }

    /** Hands {@code batch} to a writer. */
    public void submit(RecordRouter.Batch batch) {
        Job job = new Job(batch, new CompletableFuture<>());
        pending.addLast(job);
        writers.execute(() -> {
            try {
                write(batch);
                job.done().complete(null);
            } catch (Throwable e) {
                job.done().completeExceptionally(e);
            }
        });
    }

    /** Whether every writer is busy and a batch waits: poll no more until one is done. */
    public boolean full() {
        return pending.size() >= capacity;
    }

    /** Whether a writer has nothing to write: a batch submitted now would be written at once. */
    public boolean writerFree() {
        return pending.size() < capacity - 1;
    }

    /** Whether no batch is being written: everything submitted has been handed back. */
    public boolean idle() {
        return pending.isEmpty();
    }

    /** Whether {@code partition} has records in a batch not yet handed back. */
    boolean writing(TopicPartition partition) {
        for (Job job : pending) {
            if (job.batch().offsets().containsKey(partition)) {
                return true;
            }
        }
        return false;
    }

    /** Waits up to {@code timeout} for the oldest batch; returns whether it is done. */
    public boolean awaitOldest(Duration timeout) throws InterruptedException {
        Job oldest = pending.peekFirst();
        if (oldest == null) {
            return true;
        }
        try {
            oldest.done().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            // takeDone reports it
        }
        return true;
    }

    /**
     * Removes and returns the batches written, oldest first, up to the first one still being written. A writer that
     * failed other than by a retriable error (a bug) stops the sink here.
     */
    public List<RecordRouter.Batch> takeDone() {
        List<RecordRouter.Batch> done = new ArrayList<>();
        while (!pending.isEmpty() && pending.peekFirst().done().isDone()) {
            Job job = pending.removeFirst();
            try {
                job.done().join();
            } catch (RuntimeException e) {
                throw new IllegalStateException("writing a batch failed", e.getCause() == null ? e : e.getCause());
            }
            done.add(job.batch());
        }
        return done;
    }

    /** Revoked partitions: their offsets in batches still being written are another consumer's to commit now. */
    void forget(Collection<TopicPartition> partitions) {
        for (Job job : pending) {
            job.batch().offsets().keySet().removeAll(partitions);
        }
    }

    private void write(RecordRouter.Batch batch) {
        for (WriteBody body : batch.bodies()) {
            retrying("write to InfluxDB", () -> writer.write(body));
        }
        if (!batch.deadLetters().isEmpty()) {
            retrying("send to the dead-letter topic", () -> deadLetters.send(batch.deadLetters()));
        }
    }

    /** Runs {@code action} until it succeeds; gives up only on close. */
    private void retrying(String what, Runnable action) {
        for (int attempt = 1; ; attempt++) {
            try {
                action.run();
                if (attempt > 1) {
                    log.info("{} succeeded after {} attempts; resuming consumption", what, attempt);
                    metrics.retrying(failing.decrementAndGet() > 0);
                }
                return;
            } catch (RetriableException e) {
                if (closed.getCount() == 0) {
                    throw new Stopped();
                }
                metrics.retry();
                if (attempt == 1) {
                    failing.incrementAndGet();
                    metrics.retrying(true);
                }
                Duration delay = backoff.delay(attempt);
                log.warn("{} failed (attempt {}): {}; retrying in {} ms, consumption paused", what, attempt,
                        e.getMessage(), delay.toMillis());
                try {
                    if (closed.await(delay.toNanos(), TimeUnit.NANOSECONDS)) {
                        throw new Stopped();
                    }
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new Stopped();
                }
            }
        }
    }

    /**
     * Ends the retries and waits up to {@code timeout} for the writes in progress; returns the batches written
     * by then that were not handed back yet, in order (up to the first one that was not).
     */
    public List<RecordRouter.Batch> close(Duration timeout) {
        closed.countDown();
        writers.shutdown();
        try {
            if (!writers.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                if (pending.stream().anyMatch(job -> !job.done().isDone())) {
                    log.warn("writes still in progress after {} ms; their records are read again on the next start",
                            timeout.toMillis());
                }
                writers.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            writers.shutdownNow();
        }
        List<RecordRouter.Batch> done = new ArrayList<>();
        while (!pending.isEmpty() && pending.peekFirst().done().isDone()
                && !pending.peekFirst().done().isCompletedExceptionally()) {
            done.add(pending.removeFirst().batch());
        }
        pending.clear();
        return done;
    }

    @Override
    public void close() {
        close(Duration.ZERO);
    }

    /** Thrown out of a retry wait when the pipeline is closed. */
    private static final class Stopped extends RuntimeException {
        Stopped() {
            super(null, null, false, false);
        }
    }
}
