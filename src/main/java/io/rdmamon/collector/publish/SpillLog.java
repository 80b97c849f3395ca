package io.rdmamon.collector.publish;

import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
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
import java.util.List;
import java.util.stream.Stream;

/**
 * The on-disk part of the buffer: a FIFO of records in a directory of segment files named {@code <id>.spill}, read in
 * id order. Appends go to the newest segment (a new one every {@code segmentBytes}); reads come from the oldest, which
 * is deleted once read through, so disk use stays within the unread bytes plus about one segment.
 *
 * <p>A lock file keeps two collectors from sharing a directory. Segments from an earlier run are picked up on open,
 * which is how records survive a restart. A segment that cannot be read is renamed to {@code *.corrupt} (kept for the
 * operator, logged with its path) and skipped.
 */
final class SpillLog implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(SpillLog.class);
    private static final String LOCK_FILE = ".lock";

    private final Path dir;
    private final long segmentBytes;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final Deque<SpillSegment> segments = new ArrayDeque<>();
    private long nextId;

    private SpillLog(Path dir, long segmentBytes, FileChannel lockChannel, FileLock lock) {
        this.dir = dir;
        this.segmentBytes = segmentBytes;
        this.lockChannel = lockChannel;
        this.lock = lock;
    }

    /** Opens (creating if needed) and locks {@code dir}, loading the segments an earlier run left there. */
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
        SpillLog spill = new SpillLog(dir, segmentBytes, lockChannel, lock);
        spill.load();
        return spill;
    }

    private void load() throws IOException {
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(p -> p.getFileName().toString().endsWith(SpillSegment.SUFFIX)).toList();
        }
        List<SpillSegment> loaded = new ArrayList<>();
        for (Path file : files) {
            String name = file.getFileName().toString();
            long id;
            try {
                id = Long.parseLong(name.substring(0, name.length() - SpillSegment.SUFFIX.length()));
            } catch (NumberFormatException e) {
                log.warn("spill directory {}: ignoring {}, not a segment name", dir, file);
                continue;
            }
            try {
                SpillSegment segment = SpillSegment.open(file, id);
                if (segment.unreadRecords() == 0) {
                    segment.delete();
                } else {
                    loaded.add(segment);
                }
            } catch (IOException e) {
                quarantine(file, e);
            }
        }
        loaded.sort(Comparator.comparingLong(SpillSegment::id));
        segments.addAll(loaded);
        nextId = loaded.isEmpty() ? 0 : loaded.get(loaded.size() - 1).id() + 1;
        if (!loaded.isEmpty()) {
            log.info("spill directory {}: {} records ({} bytes) from an earlier run will be sent first", dir,
                    records(), bytes());
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

    void append(PendingRecord record) throws IOException {
        SpillSegment tail = segments.peekLast();
        if (tail == null || tail.fileBytes() >= segmentBytes) {
            tail = SpillSegment.create(dir, nextId++);
            segments.addLast(tail);
        }
        tail.append(record);
    }

    /** Puts {@code records} (oldest first) in front of everything spilled so far: records that were in flight. */
    void prepend(List<PendingRecord> records) throws IOException {
        if (records.isEmpty()) {
            return;
        }
        long id = segments.isEmpty() ? nextId++ : segments.peekFirst().id() - 1;
        SpillSegment head = SpillSegment.create(dir, id);
        for (PendingRecord record : records) {
            head.append(record);
        }
        segments.addFirst(head);
    }

    /** The oldest record, removed from the log; null when empty. */
    PendingRecord poll() throws IOException {
        while (true) {
            SpillSegment head = segments.peekFirst();
            if (head == null) {
                return null;
            }
            if (head.unreadRecords() > 0) {
                try {
                    PendingRecord record = head.poll();
                    if (head.unreadRecords() == 0) {
                        retire(head);
                    }
                    return record;
                } catch (IOException e) {
                    segments.pollFirst();
                    head.close();
                    quarantine(head.path(), e);
                    throw new SpillReadException(head.unreadRecords(), e);
                }
            }
            retire(head);
        }
    }

    private void retire(SpillSegment segment) throws IOException {
        segments.remove(segment);
        segment.delete();
    }

    boolean isEmpty() {
        return records() == 0;
    }

    long records() {
        long n = 0;
        for (SpillSegment s : segments) {
            n += s.unreadRecords();
        }
        return n;
    }

    long bytes() {
        long n = 0;
        for (SpillSegment s : segments) {
            n += s.unreadBytes();
        }
        return n;
    }

    Path dir() {
        return dir;
    }

    @Override
    public void close() throws IOException {
        try {
            for (SpillSegment segment : segments) {
                segment.force();
                segment.close();
            }
            segments.clear();
        } finally {
            lock.release();
            lockChannel.close();
        }
    }

    /** A segment became unreadable mid-way: its remaining records are lost (counted by the caller). */
    static final class SpillReadException extends IOException {
        private final int lostRecords;

        SpillReadException(int lostRecords, IOException cause) {
            super(cause.getMessage(), cause);
            this.lostRecords = lostRecords;
        }

        int lostRecords() {
            return lostRecords;
        }
    }
}
