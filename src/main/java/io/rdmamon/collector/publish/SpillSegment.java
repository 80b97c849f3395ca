package io.rdmamon.collector.publish;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * One file of the spill log: a header, then records appended at the end and read from the front. Its records carry
 * consecutive sequence numbers from {@link #firstSeq()}, which is in the header (and in the file name).
 *
 * <p>Layout (big-endian): header {@code int magic "RDSP", int version 2, long firstSeq}; each record {@code int length}
 * (of what follows), {@code int crc32c} (of the body), body {@code long timestampMs, long publishedAtMs, short
 * topicLength, topic UTF-8, int keyLength (-1: null), key UTF-8, int valueLength, value}. A file cut short by a crash,
 * or damaged, is truncated after its last intact record when opened (logged with the path and offset). Not
 * thread-safe, except {@link #force()}: the owning {@link SpillLog} is used under its buffer's lock.
 */
final class SpillSegment implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(SpillSegment.class);
    static final String SUFFIX = ".spill";
    private static final int MAGIC = 0x52445350;
    private static final int VERSION = 2;
    static final int HEADER_BYTES = 16;
    /** Version 1, the spill file before the write-ahead log: no sequence number. Read once, to be migrated. */
    private static final int LEGACY_VERSION = 1;
    private static final int LEGACY_HEADER_BYTES = 8;
    private static final int READ_AHEAD_BYTES = 64 * 1024;

    private final long firstSeq;
    private final Path path;
    private final FileChannel channel;
    private final int headerBytes;
    private ByteBuffer readAhead;
    private long readAheadStart;
    /** End of what is in the file; appends wait in the log's write buffer until {@link #write}. */
    private long writtenPosition;
    private long writtenRecords;
    /** Records appended, written or not: the next record's sequence number is {@code firstSeq + records}. */
    private long records;
    private long bytes;
    private long readPosition;
    private long readSeq;
    private boolean damaged;

    private SpillSegment(long firstSeq, Path path, FileChannel channel, int headerBytes) {
        this.firstSeq = firstSeq;
        this.path = path;
        this.channel = channel;
        this.headerBytes = headerBytes;
        this.readSeq = firstSeq;
        this.readPosition = headerBytes;
        this.writtenPosition = headerBytes;
    }

    static SpillSegment create(Path dir, long firstSeq) throws IOException {
        Path path = dir.resolve(firstSeq + SUFFIX);
        FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        SpillSegment segment = new SpillSegment(firstSeq, path, channel, HEADER_BYTES);
        try {
            ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).putInt(MAGIC).putInt(VERSION).putLong(firstSeq).flip();
            while (header.hasRemaining()) {
                channel.write(header, header.position());
            }
        } catch (IOException e) {
            segment.delete();
            throw e;
        }
        return segment;
    }

    /**
     * Opens a segment left by an earlier run, counting its intact records and cutting off a damaged tail. A version 1
     * file (see {@link #legacy()}) is numbered from 0.
     */
    static SpillSegment open(Path path) throws IOException {
        FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
            while (header.hasRemaining() && channel.read(header, header.position()) > 0) {
                // read the whole header
            }
            header.flip();
            int magic = header.remaining() >= LEGACY_HEADER_BYTES ? header.getInt() : 0;
            int version = magic == MAGIC ? header.getInt() : 0;
            SpillSegment segment;
            if (version == LEGACY_VERSION) {
                segment = new SpillSegment(0, path, channel, LEGACY_HEADER_BYTES);
            } else if (version == VERSION && header.remaining() >= Long.BYTES) {
                segment = new SpillSegment(header.getLong(), path, channel, HEADER_BYTES);
            } else {
                throw new IOException("not an rdmamon spill file (bad header): " + path);
            }
            segment.scan();
            return segment;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private void scan() throws IOException {
        long size = channel.size();
        while (writtenPosition < size) {
            PendingRecord record = readAt(writtenPosition);
            if (record == null) {
                log.warn("spill file {}: damaged or incomplete record at offset {} (a crash while writing?); keeping the "
                        + "{} records before it, cutting off {} bytes", path, writtenPosition, records,
                        size - writtenPosition);
                channel.truncate(writtenPosition);
                readAhead = null; // it may hold the bytes just cut off
                damaged = true;
                break;
            }
            int recordBytes = record.sizeBytes();
            writtenPosition += recordBytes;
            records++;
            bytes += recordBytes;
        }
        writtenRecords = records;
    }

    /** Puts {@code record}, framed, at the end of {@code buf} (the log's write buffer, later {@link #write}n here). */
    void encode(PendingRecord record, ByteBuffer buf, CRC32C crc) {
        int start = buf.position();
        int size = record.sizeBytes();
        buf.putInt(size - 4).putInt(0)
                .putLong(record.timestampMs()).putLong(record.publishedAtMs());
        putString(buf, record.topic(), true);
        putString(buf, record.key(), false);
        buf.putInt(record.value().length).put(record.value());
        crc.reset();
        crc.update(buf.array(), buf.arrayOffset() + start + 8, size - 8);
        buf.putInt(start + 4, (int) crc.getValue());
        records++;
        bytes += size;
    }

    /** Length then UTF-8 bytes; ASCII (node, device and topic names) without a byte array of its own. */
    private static void putString(ByteBuffer buf, String s, boolean shortLength) {
        if (s == null) {
            buf.putInt(-1);
            return;
        }
        boolean ascii = true;
        for (int i = 0; i < s.length() && ascii; i++) {
            ascii = s.charAt(i) < 0x80;
        }
        if (!ascii) {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            if (shortLength) {
                buf.putShort((short) utf8.length);
            } else {
                buf.putInt(utf8.length);
            }
            buf.put(utf8);
            return;
        }
        if (shortLength) {
            buf.putShort((short) s.length());
        } else {
            buf.putInt(s.length());
        }
        for (int i = 0; i < s.length(); i++) {
            buf.put((byte) s.charAt(i));
        }
    }

    /** Writes {@code buf} (records {@link #encode}d since the last write) at the end of the file. */
    void write(ByteBuffer buf) throws IOException {
        long position = writtenPosition;
        try {
            while (buf.hasRemaining()) {
                position += channel.write(buf, position);
            }
        } catch (IOException e) {
            // what was encoded but not written is not in this segment: forget it (the caller counts it)
            bytes = writtenPosition - headerBytes;
            records = writtenRecords;
            buf.clear();
            try {
                channel.truncate(writtenPosition); // no torn record left behind if the disk allows
            } catch (IOException ignored) {
                // the next open cuts it off
            }
            throw e;
        }
        writtenPosition = position;
        writtenRecords = records;
    }

    /** The next unread record (sequence {@link #readSeq()}), or null when all written records were read. */
    PendingRecord poll() throws IOException {
        if (readSeq >= firstSeq + writtenRecords) {
            return null;
        }
        PendingRecord record = readAt(readPosition);
        if (record == null) {
            throw new IOException("spill file " + path + " changed under us at offset " + readPosition);
        }
        readPosition += record.sizeBytes();
        readSeq++;
        return record;
    }

    private PendingRecord readAt(long position) throws IOException {
        ByteBuffer frame = read(position, 8);
        if (frame == null) {
            return null;
        }
        int length = frame.getInt();
        int expectedCrc = frame.getInt();
        if (length < PendingRecord.OVERHEAD_BYTES - 4 || position + 4L + length > channel.size()) {
            return null;
        }
        ByteBuffer body = read(position + 8, length - 4);
        if (body == null) {
            return null;
        }
        CRC32C crc = new CRC32C();
        crc.update(body.duplicate());
        if ((int) crc.getValue() != expectedCrc) {
            return null;
        }
        return decode(body);
    }

    private static PendingRecord decode(ByteBuffer body) {
        try {
            long timestampMs = body.getLong();
            long publishedAtMs = body.getLong();
            String topic = string(body, body.getShort());
            int keyLength = body.getInt();
            String key = keyLength < 0 ? null : string(body, keyLength);
            byte[] value = new byte[body.getInt()];
            body.get(value);
            return body.hasRemaining() ? null : new PendingRecord(topic, key, timestampMs, value, publishedAtMs);
        } catch (RuntimeException e) {
            return null; // lengths inconsistent with the frame: treated like a bad CRC
        }
    }

    private static String string(ByteBuffer buf, int length) {
        byte[] bytes = new byte[length];
        buf.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** {@code length} bytes at {@code position}, through a read-ahead window; null past the end of the file. */
    private ByteBuffer read(long position, int length) throws IOException {
        if (readAhead == null) {
            readAhead = ByteBuffer.allocate(READ_AHEAD_BYTES).limit(0); // only segments that are read need one
        }
        long end = readAheadStart + readAhead.limit();
        if (position < readAheadStart || position + length > end) {
            if (length > readAhead.capacity()) {
                ByteBuffer big = ByteBuffer.allocate(length);
                return fill(big, position) ? big.flip() : null;
            }
            readAhead.clear();
            readAheadStart = position;
            fill(readAhead, position);
            readAhead.flip();
            if (readAhead.limit() < length) {
                return null;
            }
        }
        int offset = (int) (position - readAheadStart);
        return readAhead.slice(offset, length);
    }

    private boolean fill(ByteBuffer buf, long position) throws IOException {
        long at = position;
        while (buf.hasRemaining()) {
            int n = channel.read(buf, at);
            if (n < 0) {
                return false;
            }
            at += n;
        }
        return true;
    }

    long firstSeq() {
        return firstSeq;
    }

    /** Sequence number after the last record appended. */
    long endSeq() {
        return firstSeq + records;
    }

    /** Sequence number after the last record in the file. */
    long writtenEndSeq() {
        return firstSeq + writtenRecords;
    }

    long readSeq() {
        return readSeq;
    }

    /** Bytes of the records appended (header excluded). */
    long bytes() {
        return bytes;
    }

    /** Bytes the records not read yet take (header excluded). */
    long unreadBytes() {
        return headerBytes + bytes - readPosition;
    }

    /** A version 1 file: its records are to be copied into the log (their numbers here start at 0). */
    boolean legacy() {
        return headerBytes == LEGACY_HEADER_BYTES;
    }

    /** True when opening cut off a damaged tail. */
    boolean damaged() {
        return damaged;
    }

    Path path() {
        return path;
    }

    /** Makes what was written durable against a machine crash; may run on another thread than the appends. */
    void force() throws IOException {
        channel.force(false);
    }

    void delete() throws IOException {
        channel.close();
        Files.deleteIfExists(path);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
