package io.rdmamon.collector.publish;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The records between {@code publish()} and Kafka's acknowledgement, as one FIFO, oldest first:
 * <ol>
 *   <li>in flight: handed to the producer, not acknowledged; at most {@code inFlightMaxBytes} (the window), so the
 *   producer never holds more than we account for;</li>
 *   <li>retry: sends that failed for a passing reason, sent again before anything newer;</li>
 *   <li>the spill file: older records pushed out of memory;</li>
 *   <li>memory: the newest records.</li>
 * </ol>
 * In flight, retry and memory together stay within {@code memoryMaxBytes}: when a new record would pass it, the
 * oldest record in memory moves to the end of the spill file, which keeps the order. When the spill file would pass
 * {@code spillMaxBytes}, its oldest records are dropped and counted. Records in flight are never dropped: they are
 * the producer's, and it retries them until the broker takes them.
 *
 * <p>All state is under one lock. {@code add} (the sampling thread) does at most a file append and, when full, reads
 * the headers of the records it drops; it never waits for Kafka.
 */
final class SampleBuffer {
    private static final Logger log = LoggerFactory.getLogger(SampleBuffer.class);

    private final long memoryMaxBytes;
    private final long spillMaxBytes;
    private final long inFlightMaxBytes;
    private final SpillLog spill;
    private final PublishMetrics metrics;
    private final DroppedRecords dropped;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();

    private final TreeMap<Long, PendingRecord> inFlight = new TreeMap<>();
    private final TreeMap<Long, PendingRecord> retry = new TreeMap<>();
    private final Deque<PendingRecord> memory = new ArrayDeque<>();
    private long inFlightBytes;
    private long retryBytes;
    private long memoryBytes;
    private long nextSeq;
    private long lastProgressMs;
    private boolean closed;

    /** {@code spill} may be null: no spill file, records beyond memory are dropped. */
    SampleBuffer(long memoryMaxBytes, long inFlightMaxBytes, SpillLog spill, long spillMaxBytes,
                 PublishMetrics metrics) {
        this.memoryMaxBytes = memoryMaxBytes;
        this.inFlightMaxBytes = inFlightMaxBytes;
        this.spill = spill;
        this.spillMaxBytes = spill == null ? 0 : spillMaxBytes;
        this.metrics = metrics;
        this.dropped = new DroppedRecords(metrics, memoryMaxBytes, this.spillMaxBytes);
    }

    /** A record handed to the sender, with the sequence number that identifies it until it is settled. */
    record Claim(long seq, PendingRecord record) {
    }

    /** Returns false when the buffer is closed (the record is then dropped and counted). */
    boolean add(PendingRecord record) {
        lock.lock();
        try {
            if (closed) {
                dropped.add(1);
                return false;
            }
            memory.addLast(record);
            memoryBytes += record.sizeBytes();
            while (memoryBytes + inFlightBytes + retryBytes > memoryMaxBytes && !memory.isEmpty()) {
                PendingRecord oldest = memory.pollFirst();
                memoryBytes -= oldest.sizeBytes();
                spillOrDrop(oldest);
            }
            changed.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    private void spillOrDrop(PendingRecord record) {
        int size = record.sizeBytes();
        if (spill == null || size > spillMaxBytes) {
            dropped.add(1);
            return;
        }
        try {
            while (spill.bytes() + size > spillMaxBytes) {
                if (pollSpill() == null) {
                    break;
                }
                dropped.add(1);
            }
            spill.append(record);
            metrics.spilled(1);
        } catch (IOException e) {
            log.error("cannot write to spill directory {}: {}; record dropped", spill.dir(), e.getMessage());
            dropped.add(1);
        }
    }

    private PendingRecord pollSpill() {
        while (true) {
            try {
                return spill.poll();
            } catch (SpillLog.SpillReadException e) {
                dropped.add(e.lostRecords());
            } catch (IOException e) {
                log.error("cannot delete a read-through spill file in {}: {}", spill.dir(), e.getMessage());
            }
        }
    }

    /**
     * The oldest record not yet handed over, once the in-flight window has room; null if none came within the
     * timeout (or on interrupt). The record stays in flight until {@link #settle} or {@link #requeue}.
     */
    Claim take(long timeoutMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        lock.lock();
        try {
            while (!closed) {
                if (inFlight.isEmpty() || inFlightBytes < inFlightMaxBytes) {
                    Claim claim = next();
                    if (claim != null) {
                        if (inFlight.isEmpty()) {
                            lastProgressMs = System.currentTimeMillis();
                        }
                        inFlight.put(claim.seq(), claim.record());
                        inFlightBytes += claim.record().sizeBytes();
                        return claim;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                changed.awaitNanos(left);
            }
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } finally {
            lock.unlock();
        }
    }

    private Claim next() {
        Map.Entry<Long, PendingRecord> again = retry.pollFirstEntry();
        if (again != null) {
            retryBytes -= again.getValue().sizeBytes();
            return new Claim(again.getKey(), again.getValue());
        }
        PendingRecord record = spill == null ? null : pollSpill();
        if (record == null) {
            record = memory.pollFirst();
            if (record == null) {
                return null;
            }
            memoryBytes -= record.sizeBytes();
        }
        return new Claim(nextSeq++, record);
    }

    /** Kafka took the record, or refused it for good: it leaves the buffer. Null if it was not in flight. */
    PendingRecord settle(long seq) {
        lock.lock();
        try {
            PendingRecord record = inFlight.remove(seq);
            if (record != null) {
                inFlightBytes -= record.sizeBytes();
                lastProgressMs = System.currentTimeMillis();
                changed.signalAll();
            }
            return record;
        } finally {
            lock.unlock();
        }
    }

    /** The send failed for a passing reason: the record goes back in front of everything not in flight. */
    void requeue(long seq) {
        lock.lock();
        try {
            PendingRecord record = inFlight.remove(seq);
            if (record != null) {
                inFlightBytes -= record.sizeBytes();
                retry.put(seq, record);
                retryBytes += record.sizeBytes();
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Wakes a sender waiting in {@link #take}, e.g. to notice that it must stop. */
    void wakeUp() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** How long records have been in flight without any being settled; 0 when none is in flight. */
    long millisWithoutProgress(long nowMs) {
        lock.lock();
        try {
            return inFlight.isEmpty() ? 0 : nowMs - lastProgressMs;
        } finally {
            lock.unlock();
        }
    }

    /** True when nothing is left to send and nothing is in flight. */
    boolean isSettled() {
        lock.lock();
        try {
            return inFlight.isEmpty() && retry.isEmpty() && memory.isEmpty() && (spill == null || spill.isEmpty());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops taking records, and writes what is left to the spill file in order: records in flight or to retry in
     * front of what was spilled, memory after it. Call once the producer is closed (nothing is in flight any more
     * from Kafka's side). Without a spill file what is left is dropped and counted.
     */
    void close() {
        lock.lock();
        try {
            closed = true;
            List<PendingRecord> oldest = new ArrayList<>();
            TreeMap<Long, PendingRecord> unsettled = new TreeMap<>(inFlight);
            unsettled.putAll(retry);
            oldest.addAll(unsettled.values());
            inFlight.clear();
            retry.clear();
            inFlightBytes = 0;
            retryBytes = 0;
            persist(oldest);
            while (!memory.isEmpty()) {
                PendingRecord record = memory.pollFirst();
                memoryBytes -= record.sizeBytes();
                spillOrDrop(record);
            }
            if (spill != null) {
                if (!spill.isEmpty()) {
                    log.info("{} records ({} bytes) not yet delivered are kept in {} for the next start",
                            spill.records(), spill.bytes(), spill.dir());
                }
                spill.close();
            }
            dropped.report(true);
        } catch (IOException e) {
            log.error("cannot close the spill directory {}: {}", spill.dir(), e.getMessage());
        } finally {
            lock.unlock();
        }
    }

    private void persist(List<PendingRecord> oldest) {
        if (oldest.isEmpty()) {
            return;
        }
        if (spill == null) {
            dropped.add(oldest.size());
            return;
        }
        try {
            spill.prepend(oldest);
            metrics.spilled(oldest.size());
        } catch (IOException e) {
            log.error("cannot write {} unacknowledged records to spill directory {}: {}", oldest.size(), spill.dir(),
                    e.getMessage());
            dropped.add(oldest.size());
        }
    }

    long records() {
        lock.lock();
        try {
            return inFlight.size() + retry.size() + memory.size() + (spill == null ? 0 : spill.records());
        } finally {
            lock.unlock();
        }
    }

    long bytes() {
        lock.lock();
        try {
            return inFlightBytes + retryBytes + memoryBytes + (spill == null ? 0 : spill.bytes());
        } finally {
            lock.unlock();
        }
    }
}
