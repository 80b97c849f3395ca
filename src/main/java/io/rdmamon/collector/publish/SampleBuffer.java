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
 * The records between {@code publish()} and Kafka's acknowledgement, as one FIFO numbered by sequence, oldest first:
 * <ol>
 *   <li>in flight: handed to the producer, not acknowledged; at most {@code inFlightMaxBytes} (the window), so the
 *   producer never holds more than we account for;</li>
 *   <li>retry: sends that failed for a passing reason, sent again before anything newer;</li>
 *   <li>on disk only: older records pushed out of memory, read back from the spill log;</li>
 *   <li>memory: the newest records.</li>
 * </ol>
 * Every record is also appended to the spill log (a write-ahead log) when it is added, so that a crash loses at most
 * what the flush clock had not written yet; {@link #sync} (the flush thread) writes, fsyncs and moves the delivered
 * mark, below which a restart does not replay. In flight, retry and memory together stay within {@code
 * memoryMaxBytes}: beyond it the oldest record in memory is dropped from memory only (it is on disk). When the log
 * would pass {@code spillMaxBytes}, its oldest segment is deleted and the records in it not yet sent are dropped and
 * counted. Records in flight are never dropped: they are the producer's, and it retries them until the broker takes
 * them. When the log cannot be written (disk full, read-only), the buffer goes on with memory alone (logged, counted
 * by a gauge) and tries the disk again every {@link #RESUME_INTERVAL_MS}.
 *
 * <p>All state is under one lock. {@code add} (the sampling thread) copies the record into the log's write buffer and
 * never waits for Kafka or for an fsync.
 */
final class SampleBuffer {
    private static final Logger log = LoggerFactory.getLogger(SampleBuffer.class);
    static final long RESUME_INTERVAL_MS = 30_000;

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
    /** Records numbered {@code memoryFirstSeq} on, consecutively. */
    private final Deque<PendingRecord> memory = new ArrayDeque<>();
    private long inFlightBytes;
    private long retryBytes;
    private long memoryBytes;
    /** Number of the next record added. */
    private long nextSeq;
    private long memoryFirstSeq;
    /** Number of the next record to hand over; below {@code memoryFirstSeq} it is read from disk. */
    private long nextToSend;
    private long diskOnlyRecords;
    private long diskOnlyBytes;
    /** The spill log cannot be written: memory alone until {@code resumeAtMs}. */
    private boolean degraded;
    private long resumeAtMs;
    private long writtenMark = -1;
    private long lastProgressMs;
    private boolean closed;

    /** {@code spill} may be null: no spill log, records beyond memory are dropped and a crash loses memory. */
    SampleBuffer(long memoryMaxBytes, long inFlightMaxBytes, SpillLog spill, long spillMaxBytes,
                 PublishMetrics metrics) {
        this.memoryMaxBytes = memoryMaxBytes;
        this.inFlightMaxBytes = inFlightMaxBytes;
        this.spill = spill;
        this.spillMaxBytes = spill == null ? 0 : spillMaxBytes;
        this.metrics = metrics;
        this.dropped = new DroppedRecords(metrics, memoryMaxBytes, this.spillMaxBytes);
        if (spill != null) {
            nextSeq = spill.endSeq();
            nextToSend = spill.startSeq();
            diskOnlyRecords = spill.records();
            diskOnlyBytes = spill.unreadBytes();
            metrics.spillDamaged(spill.damagedSegments());
            if (spill.lostRecords() > 0) {
                dropped.add(spill.lostRecords());
            }
        }
        memoryFirstSeq = nextSeq;
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
            long seq = nextSeq++;
            append(record, seq);
            // with records in memory already, a waiting sender waits for the in-flight window, not for this one
            boolean senderMayWait = memory.isEmpty();
            memory.addLast(record);
            memoryBytes += record.sizeBytes();
            while (memoryBytes + inFlightBytes + retryBytes > memoryMaxBytes && !memory.isEmpty()) {
                evictOldest();
            }
            if (senderMayWait) {
                changed.signalAll();
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    private void append(PendingRecord record, long seq) {
        if (spill == null || (degraded && System.currentTimeMillis() < resumeAtMs)) {
            return;
        }
        try {
            spill.append(record, seq);
            if (degraded) {
                degraded = false;
                log.info("spill directory {} can be written again: records from now on survive a crash", spill.dir());
            }
            while (spill.bytes() > spillMaxBytes && spill.segmentCount() > 1) {
                dropOldestSegment();
            }
        } catch (IOException e) {
            degrade("append to", e);
        }
    }

    private void degrade(String what, IOException e) {
        if (!degraded) {
            log.error("cannot {} spill directory {} ({}: {}): buffering in memory only, records beyond {} bytes will "
                            + "be dropped while Kafka is unreachable and a crash loses what is in memory; trying the disk "
                            + "again every {} s", what, spill.dir(), e.getClass().getSimpleName(), e.getMessage(),
                    memoryMaxBytes, RESUME_INTERVAL_MS / 1000);
        }
        metrics.spillError(what);
        degraded = true;
        resumeAtMs = System.currentTimeMillis() + RESUME_INTERVAL_MS;
    }

    /** Memory is full: its oldest record stays only on disk, or is dropped when it is not there. */
    private void evictOldest() {
        PendingRecord oldest = memory.pollFirst();
        long seq = memoryFirstSeq++;
        memoryBytes -= oldest.sizeBytes();
        if (onDisk(seq)) {
            diskOnlyRecords++;
            diskOnlyBytes += oldest.sizeBytes();
            metrics.spilled(1);
        } else {
            dropped.add(1);
            if (diskOnlyRecords == 0) {
                nextToSend = memoryFirstSeq;
            }
        }
    }

    private boolean onDisk(long seq) {
        if (spill == null) {
            return false;
        }
        try {
            return spill.holds(seq);
        } catch (IOException e) {
            degrade("write to", e);
            return false;
        }
    }

    /**
     * The log passed its bound: its oldest segment goes, and with it the records not yet sent (from disk and from
     * memory). Records in flight or to retry stay in memory: they are still delivered, only no longer crash-safe.
     */
    private void dropOldestSegment() throws IOException {
        SpillSegment oldest = spill.dropOldest();
        long end = oldest.endSeq();
        if (nextToSend >= end) {
            return;
        }
        long fromDisk = Math.min(end, memoryFirstSeq) - Math.max(nextToSend, oldest.firstSeq());
        long lost = Math.max(0, fromDisk);
        if (lost > 0) {
            // the sizes of records never read back are not known: take the average of what is on disk
            diskOnlyBytes -= diskOnlyRecords == 0 ? 0 : diskOnlyBytes * lost / diskOnlyRecords;
            diskOnlyRecords = Math.max(0, diskOnlyRecords - lost);
        }
        while (memoryFirstSeq < end && !memory.isEmpty()) {
            memoryBytes -= memory.pollFirst().sizeBytes();
            memoryFirstSeq++;
            lost++;
        }
        nextToSend = Math.max(nextToSend, Math.min(end, memoryFirstSeq));
        if (diskOnlyRecords == 0) {
            diskOnlyBytes = 0;
        }
        dropped.add(lost);
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
        if (nextToSend < memoryFirstSeq) {
            SpillLog.Read read = readDisk();
            if (read != null) {
                nextToSend = read.seq() + 1;
                diskOnlyRecords = Math.max(0, diskOnlyRecords - 1);
                diskOnlyBytes = Math.max(0, diskOnlyBytes - read.record().sizeBytes());
                return new Claim(read.seq(), read.record());
            }
            // the rest before memory is not on disk: dropped (and counted) when it left memory, or cut off
            nextToSend = memoryFirstSeq;
            diskOnlyRecords = 0;
            diskOnlyBytes = 0;
        }
        PendingRecord record = memory.pollFirst();
        if (record == null) {
            return null;
        }
        memoryBytes -= record.sizeBytes();
        long seq = memoryFirstSeq++;
        nextToSend = memoryFirstSeq;
        return new Claim(seq, record);
    }

    private SpillLog.Read readDisk() {
        while (true) {
            try {
                return spill == null ? null : spill.read(nextToSend, memoryFirstSeq);
            } catch (SpillLog.SpillReadException e) {
                metrics.spillDamaged(1);
                dropped.add(e.lostRecords());
            } catch (IOException e) {
                log.error("cannot read the spill directory {}: {}; records not yet sent from it are skipped",
                        spill.dir(), e.getMessage());
                return null;
            }
        }
    }

    /** Kafka took the record, or refused it for good: it leaves the buffer. Null if it was not in flight. */
    PendingRecord settle(long seq) {
        lock.lock();
        try {
            PendingRecord record = inFlight.remove(seq);
            if (record != null) {
                // only a full window holds the sender back: waking it on every acknowledgement cost the collector
                // a dozen thread wake-ups per pass
                boolean windowWasFull = inFlightBytes >= inFlightMaxBytes;
                inFlightBytes -= record.sizeBytes();
                lastProgressMs = System.currentTimeMillis();
                if (windowWasFull) {
                    changed.signalAll();
                }
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
            return inFlight.isEmpty() && retry.isEmpty() && memory.isEmpty() && nextToSend >= memoryFirstSeq;
        } finally {
            lock.unlock();
        }
    }

    boolean isDegraded() {
        lock.lock();
        try {
            return degraded;
        } finally {
            lock.unlock();
        }
    }

    /** Everything below was delivered (or given up): the oldest record in flight, to retry, or not yet sent. */
    private long deliveredMark() {
        long mark = nextToSend;
        if (!inFlight.isEmpty()) {
            mark = Math.min(mark, inFlight.firstKey());
        }
        if (!retry.isEmpty()) {
            mark = Math.min(mark, retry.firstKey());
        }
        return mark;
    }

    /**
     * The flush clock: writes what was appended, fsyncs it and writes the delivered mark outside the lock (an fsync can
     * take long on a busy disk, and {@code add} must not wait for it), then deletes the segments delivered through.
     */
    void sync() {
        if (spill == null) {
            return;
        }
        SpillLog.Unsynced unsynced;
        long mark;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            flushLocked();
            unsynced = spill.takeUnsynced();
            mark = deliveredMark();
        } finally {
            lock.unlock();
        }
        syncUnlocked(unsynced, mark, false);
        lock.lock();
        try {
            if (!closed) {
                spill.deleteDelivered(writtenMark);
            }
        } catch (IOException e) {
            log.warn("cannot delete a delivered spill segment in {}: {}", spill.dir(), e.getMessage());
        } finally {
            lock.unlock();
        }
    }

    private void flushLocked() {
        if (degraded) {
            return;
        }
        try {
            spill.flush();
        } catch (IOException e) {
            degrade("write to", e);
        }
    }

    private void syncUnlocked(SpillLog.Unsynced unsynced, long mark, boolean closing) {
        try {
            if (unsynced != null) {
                spill.sync(unsynced);
            }
            if (mark != writtenMark || closing) {
                spill.writeMark(mark, closing);
                writtenMark = mark;
            }
        } catch (IOException e) {
            lock.lock();
            try {
                degrade("fsync", e);
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Stops taking records and makes what is left durable: every record not acknowledged is in the spill log (it was
     * appended when added), and the delivered mark says where the next start replays from. Call once the producer is
     * closed. Without a spill log (or memory alone after a disk failure) what is not on disk is dropped and counted.
     */
    void close() {
        lock.lock();
        try {
            closed = true;
            long kept = 0;
            long lost = 0;
            List<Long> unsent = new ArrayList<>(inFlight.keySet());
            unsent.addAll(retry.keySet());
            for (long seq = memoryFirstSeq; seq < nextSeq; seq++) {
                unsent.add(seq);
            }
            for (long seq : unsent) {
                if (onDisk(seq)) {
                    kept++;
                } else {
                    lost++;
                }
            }
            if (lost > 0) {
                dropped.add(lost);
            }
            metrics.spilled(kept);
            if (spill != null) {
                flushLocked();
                SpillLog.Unsynced unsynced = spill.takeUnsynced();
                syncUnlocked(unsynced, deliveredMark(), true);
                long left = kept + diskOnlyRecords;
                if (left > 0) {
                    log.info("{} records not yet delivered are kept in {} for the next start", left, spill.dir());
                }
                spill.close();
            }
            inFlight.clear();
            retry.clear();
            memory.clear();
            dropped.report(true);
        } catch (IOException e) {
            log.error("cannot close the spill directory {}: {}", spill.dir(), e.getMessage());
        } finally {
            lock.unlock();
        }
    }

    long records() {
        lock.lock();
        try {
            return inFlight.size() + retry.size() + memory.size() + diskOnlyRecords;
        } finally {
            lock.unlock();
        }
    }

    long bytes() {
        lock.lock();
        try {
            return inFlightBytes + retryBytes + memoryBytes + diskOnlyBytes;
        } finally {
            lock.unlock();
        }
    }
}
