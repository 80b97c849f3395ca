package io.rdmamon.collector.publish;

import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * The write-ahead log of the buffer: every record published is appended here, with its sequence number, so that a
 * crash loses at most what was not yet written (one flush interval). A directory of segment files {@code
 * <firstSeq>.spill} in sequence order, plus the {@link DeliveredMark} below which everything was delivered: segments
 * wholly below it are deleted, and a restart replays from it.
 *
 * <p>Appends are encoded into one write buffer and reach the file on {@link #flush} (the flush clock, a full buffer, or
 * a read of a record still in it): one write system call per flush interval, no allocation per record. {@link
 * #takeUnsynced} hands the files written since the last call to the flush thread, which fsyncs them outside the
 * buffer's lock.
 *
 * <p>A lock file keeps two collectors from sharing a directory. A segment that cannot be read is renamed to {@code
 * *.corrupt} (kept for the operator, logged with its path) and skipped. Used under the buffer's lock.
 */
final class SpillLog implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(SpillLog.class);
    private static final String LOCK_FILE = ".lock";
    /** A version 1 spill file being copied into the log (renamed first, so that its name frees up). */
    private static final String LEGACY_SUFFIX = SpillSegment.SUFFIX + ".v1";
    private static final int WRITE_BUFFER_BYTES = 64 * 1024;

    private final Path dir;
    private final long segmentBytes;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final DeliveredMark mark;
    private final Deque<SpillSegment> segments = new ArrayDeque<>();
    private final List<SpillSegment> unsynced = new ArrayList<>();
    private final CRC32C crc = new CRC32C();
    private ByteBuffer writeBuffer = ByteBuffer.allocate(WRITE_BUFFER_BYTES);
    private boolean directoryChanged;
    private long startSeq;
    private long damagedSegments;
    private long lostRecords;

    private SpillLog(Path dir, long segmentBytes, FileChannel lockChannel, FileLock lock, DeliveredMark mark) {
        this.dir = dir;
        this.segmentBytes = segmentBytes;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.mark = mark;
    }

    /** A record read back, with its sequence number. */
    record Read(long seq, PendingRecord record) {
    }

    /** Opens (creating if needed) and locks {@code dir}, loading what an earlier run did not deliver. */
    static SpillLog open(Path dir, long segmentBytes, String configKey) throws IOException {
        Files.createDirectories(dir);
        FileChannel lockChannel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = lockChannel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            lockChannel.close();
            throw new ConfigException(configKey, dir.toString(), "spill directory is in use by another collector");
        }
        SpillLog spill = null;
        try {
            spill = new SpillLog(dir, segmentBytes, lockChannel, lock, DeliveredMark.open(dir));
            spill.load();
            return spill;
        } catch (IOException | RuntimeException e) {
            if (spill != null) {
                spill.close();
            } else {
                lock.release();
                lockChannel.close();
            }
            throw e;
        }
    }

    private void load() throws IOException {
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(p -> p.getFileName().toString().endsWith(SpillSegment.SUFFIX)
                    || p.getFileName().toString().endsWith(LEGACY_SUFFIX)).toList();
        }
        long delivered = mark.read();
        List<SpillSegment> loaded = new ArrayList<>();
        List<SpillSegment> legacy = new ArrayList<>();
        for (Path file : files) {
            try {
                SpillSegment segment = SpillSegment.open(file);
                damagedSegments += segment.damaged() ? 1 : 0;
                if (segment.legacy()) {
                    legacy.add(segment);
                } else if (segment.endSeq() <= delivered) {
                    segment.delete();
                } else {
                    loaded.add(segment);
                }
            } catch (IOException e) {
                damagedSegments++;
                quarantine(file, e);
            }
        }
        loaded.sort(Comparator.comparingLong(SpillSegment::firstSeq));
        long end = delivered;
        for (SpillSegment segment : loaded) {
            if (segment.firstSeq() < end && end > delivered) {
                damagedSegments++;
                segment.close();
                quarantine(segment.path(), new IOException("overlaps the segment before it"));
                continue;
            }
            if (segment.firstSeq() > end && end > delivered) {
                // a segment cut short by a power loss, or records the earlier run could not write (disk full)
                lostRecords += segment.firstSeq() - end;
                log.warn("spill directory {}: records {} to {} are missing (cut off, or never written); skipping them",
                        dir, end, segment.firstSeq() - 1);
            }
            segments.addLast(segment);
            end = segment.endSeq();
        }
        startSeq = delivered;
        SpillSegment first = segments.peekFirst();
        if (first != null) {
            startSeq = Math.max(delivered, first.firstSeq());
            while (first.readSeq() < startSeq && first.poll() != null) {
                // skip the records of the first segment that were delivered
            }
        }
        if (!legacy.isEmpty()) {
            migrate(legacy);
        }
        if (!segments.isEmpty()) {
            log.info("spill directory {}: {} records ({} bytes) from an earlier run not acknowledged by Kafka will be "
                    + "sent first", dir, records(), unreadBytes());
        }
    }

    /**
     * Copies the records of version 1 spill files (before the write-ahead log; all of them unsent) into the log, in
     * their order, then deletes them. A crash half-way copies them again on the next start: duplicates, no loss.
     */
    private void migrate(List<SpillSegment> legacy) throws IOException {
        List<SpillSegment> renamed = new ArrayList<>();
        for (SpillSegment old : legacy) {
            old.close();
            Path from = old.path();
            Path to = from.toString().endsWith(LEGACY_SUFFIX) ? from : from.resolveSibling(from.getFileName() + ".v1");
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
            renamed.add(SpillSegment.open(to));
        }
        renamed.sort(Comparator.comparingLong(SpillLog::legacyId));
        long seq = endSeq();
        long copied = 0;
        for (SpillSegment old : renamed) {
            for (PendingRecord r = old.poll(); r != null; r = old.poll()) {
                append(r, seq++);
                copied++;
            }
        }
        flush();
        SpillSegment tail = segments.peekLast();
        if (tail != null) {
            tail.force();
        }
        for (SpillSegment old : renamed) {
            old.delete();
        }
        unsynced.clear();
        log.info("spill directory {}: copied {} records from {} spill files of an earlier version into the log",
                dir, copied, renamed.size());
    }

    private static long legacyId(SpillSegment segment) {
        String name = segment.path().getFileName().toString();
        try {
            return Long.parseLong(name.substring(0, name.indexOf('.')));
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }

    private void quarantine(Path file, IOException cause) {
        Path corrupt = file.resolveSibling(file.getFileName() + ".corrupt");
        log.error("spill file {} cannot be read ({}); moved to {} and skipped", file, cause.getMessage(), corrupt);
        try {
            Files.move(file, corrupt, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            log.error("cannot move {} aside: {}", file, e.getMessage());
        }
    }

    /** First sequence number not delivered when opened: where the sender starts. */
    long startSeq() {
        return startSeq;
    }

    /** The sequence number after the last record kept, and at least the delivered mark: where numbering goes on. */
    long endSeq() {
        SpillSegment tail = segments.peekLast();
        return tail == null ? startSeq : Math.max(startSeq, tail.endSeq());
    }

    /** Torn or unreadable segments found when opening. */
    long damagedSegments() {
        return damagedSegments;
    }

    /** Records missing between the segments found when opening. */
    long lostRecords() {
        return lostRecords;
    }

    /** Appends {@code record} as number {@code seq} (a new segment when the numbers do not follow on). */
    void append(PendingRecord record, long seq) throws IOException {
        SpillSegment tail = segments.peekLast();
        if (tail == null || tail.endSeq() != seq || SpillSegment.HEADER_BYTES + tail.bytes() >= segmentBytes) {
            flush();
            tail = SpillSegment.create(dir, seq);
            segments.addLast(tail);
            directoryChanged = true;
        }
        int size = record.sizeBytes();
        if (writeBuffer.remaining() < size) {
            flush();
            if (writeBuffer.capacity() < size) {
                writeBuffer = ByteBuffer.allocate(size);
            }
        }
        tail.encode(record, writeBuffer, crc);
    }

    /** Writes the appended records to the file (no fsync). On failure those records are not in the log. */
    void flush() throws IOException {
        if (writeBuffer.position() == 0) {
            return;
        }
        SpillSegment tail = segments.peekLast();
        writeBuffer.flip();
        try {
            tail.write(writeBuffer);
        } finally {
            writeBuffer.clear();
            if (writeBuffer.capacity() > WRITE_BUFFER_BYTES) {
                writeBuffer = ByteBuffer.allocate(WRITE_BUFFER_BYTES);
            }
        }
        if (!unsynced.contains(tail)) {
            unsynced.add(tail);
        }
    }

    /** Segments written since the last call, to fsync; null if none (and the directory is unchanged). */
    Unsynced takeUnsynced() {
        if (unsynced.isEmpty() && !directoryChanged) {
            return null;
        }
        Unsynced out = new Unsynced(List.copyOf(unsynced), directoryChanged);
        unsynced.clear();
        directoryChanged = false;
        return out;
    }

    /** What the flush thread makes durable, outside the buffer's lock. */
    record Unsynced(List<SpillSegment> segments, boolean directoryChanged) {
    }

    /** Fsyncs {@code what}; a segment deleted meanwhile is skipped. */
    void sync(Unsynced what) throws IOException {
        for (SpillSegment segment : what.segments()) {
            try {
                segment.force();
            } catch (java.nio.channels.ClosedChannelException e) {
                // delivered and deleted (or dropped) meanwhile: nothing to keep
            }
        }
        if (what.directoryChanged()) {
            try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                d.force(true); // the new segments' names survive a power loss too
            }
        }
    }

    /** Records that every record below {@code seq} was delivered (flush thread); durably when {@code force}. */
    void writeMark(long seq, boolean force) throws IOException {
        mark.write(seq, force);
    }

    /** True when record {@code seq} is in a file (written now if it was only in the write buffer). */
    boolean holds(long seq) throws IOException {
        SpillSegment tail = segments.peekLast();
        if (tail != null && seq >= tail.writtenEndSeq() && seq < tail.endSeq()) {
            flush();
        }
        for (Iterator<SpillSegment> it = segments.descendingIterator(); it.hasNext(); ) {
            SpillSegment s = it.next();
            if (seq >= s.firstSeq()) {
                return seq < s.writtenEndSeq();
            }
        }
        return false;
    }

    /**
     * The first record numbered at least {@code seq} and below {@code limit}, removed from what is left to read; null
     * if there is none in the files. Reads only move forward.
     */
    Read read(long seq, long limit) throws IOException {
        for (SpillSegment segment : segments) {
            if (segment.endSeq() <= seq) {
                continue;
            }
            long wanted = Math.max(seq, segment.readSeq());
            if (wanted >= limit) {
                return null;
            }
            if (segment == segments.peekLast() && wanted >= segment.writtenEndSeq()) {
                flush();
            }
            try {
                while (segment.readSeq() < seq && segment.poll() != null) {
                    // skip what was delivered or dropped
                }
                long at = segment.readSeq();
                if (at >= limit) {
                    return null;
                }
                PendingRecord record = segment.poll();
                if (record != null) {
                    return new Read(at, record);
                }
            } catch (IOException e) {
                long lost = segment.writtenEndSeq() - segment.readSeq();
                segments.remove(segment);
                unsynced.remove(segment);
                segment.close();
                damagedSegments++;
                quarantine(segment.path(), e);
                throw new SpillReadException(lost, e);
            }
        }
        return null;
    }

    int segmentCount() {
        return segments.size();
    }

    /** Removes and deletes the oldest segment (disk bound); the caller counts what it held. */
    SpillSegment dropOldest() throws IOException {
        SpillSegment oldest = segments.pollFirst();
        if (oldest != null) {
            unsynced.remove(oldest);
            oldest.delete();
        }
        return oldest;
    }

    /** Deletes the segments whose records were all delivered (below {@code delivered}). */
    void deleteDelivered(long delivered) throws IOException {
        while (!segments.isEmpty() && segments.peekFirst().endSeq() <= delivered
                && segments.peekFirst() != segments.peekLast()) {
            dropOldest();
        }
    }

    /** Bytes of the segment files, write buffer included. */
    long bytes() {
        long n = 0;
        for (SpillSegment s : segments) {
            n += SpillSegment.HEADER_BYTES + s.bytes();
        }
        return n;
    }

    /** Records not read yet (from the start sequence on), write buffer included. */
    long records() {
        long n = 0;
        for (SpillSegment s : segments) {
            n += s.endSeq() - s.readSeq();
        }
        return n;
    }

    /** Bytes of the records not read yet, write buffer included. */
    long unreadBytes() {
        long n = 0;
        for (SpillSegment s : segments) {
            n += s.unreadBytes();
        }
        return n;
    }

    Path dir() {
        return dir;
    }

    /** Writes, fsyncs and closes the segments; the caller writes the mark first. */
    @Override
    public void close() throws IOException {
        try {
            try {
                flush();
            } catch (IOException e) {
                log.error("spill directory {}: cannot write the last records ({}); they are lost", dir, e.getMessage());
            }
            for (SpillSegment segment : segments) {
                segment.force();
                segment.close();
            }
            segments.clear();
            mark.close();
        } finally {
            lock.release();
            lockChannel.close();
        }
    }

    /** A segment became unreadable mid-way: its remaining records are lost (counted by the caller). */
    static final class SpillReadException extends IOException {
        private final long lostRecords;

        SpillReadException(long lostRecords, IOException cause) {
            super(cause.getMessage(), cause);
            this.lostRecords = lostRecords;
        }

        long lostRecords() {
            return lostRecords;
        }
    }
}
