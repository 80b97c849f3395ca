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
 * One file of the spill log: a header, then records appended at the end and read from the front.
 *
 * <p>Layout (big-endian): header {@code int magic "RDSP", int version 1}; each record {@code int length} (of what
 * follows), {@code int crc32c} (of the body), body {@code long timestampMs, long publishedAtMs, short topicLength,
 * topic UTF-8, int keyLength (-1: null), key UTF-8, int valueLength, value}. A file cut short by a crash, or damaged,
 * is truncated after its last intact record when opened (logged with the path and offset). Not thread-safe: the
 * owning {@link SpillLog} is used under its buffer's lock.
 */
final class SpillSegment implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(SpillSegment.class);
    static final String SUFFIX = ".spill";
    private static final int MAGIC = 0x52445350;
    private static final int VERSION = 1;
    private static final int HEADER_BYTES = 8;
    private static final int READ_AHEAD_BYTES = 64 * 1024;

    private final long id;
    private final Path path;
    private final FileChannel channel;
    private final ByteBuffer readAhead = ByteBuffer.allocate(READ_AHEAD_BYTES).limit(0);
    private long readAheadStart;
    private long writePosition;
    private long readPosition = HEADER_BYTES;
    private int unreadRecords;
    private long unreadBytes;

    private SpillSegment(long id, Path path, FileChannel channel) {
        this.id = id;
        this.path = path;
        this.channel = channel;
    }

    static SpillSegment create(Path dir, long id) throws IOException {
        Path path = dir.resolve(id + SUFFIX);
        FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        SpillSegment segment = new SpillSegment(id, path, channel);
        channel.write(ByteBuffer.allocate(HEADER_BYTES).putInt(MAGIC).putInt(VERSION).flip(), 0);
        segment.writePosition = HEADER_BYTES;
        return segment;
    }

    /** Opens a segment left by an earlier run, counting its intact records and cutting off a damaged tail. */
    static SpillSegment open(Path path, long id) throws IOException {
        FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        SpillSegment segment = new SpillSegment(id, path, channel);
        try {
            segment.scan();
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        return segment;
    }

    private void scan() throws IOException {
        long size = channel.size();
        ByteBuffer header = read(0, HEADER_BYTES);
        if (header == null || header.getInt() != MAGIC || header.getInt() != VERSION) {
            throw new IOException("not an rdmamon spill file (bad header): " + path);
        }
        writePosition = HEADER_BYTES;
        while (writePosition < size) {
            PendingRecord record = readAt(writePosition);
            if (record == null) {
                log.warn("spill file {}: damaged or incomplete record at offset {} (a crash while writing?); keeping the "
                        + "{} records before it, cutting off {} bytes", path, writePosition, unreadRecords,
                        size - writePosition);
                channel.truncate(writePosition);
                readAhead.limit(0); // it may hold the bytes just cut off
                break;
            }
            int recordBytes = record.sizeBytes();
            writePosition += recordBytes;
            unreadRecords++;
            unreadBytes += recordBytes;
        }
    }

    void append(PendingRecord record) throws IOException {
        byte[] topic = record.topicBytes();
        byte[] key = record.keyBytes();
        int size = record.sizeBytes();
        ByteBuffer buf = ByteBuffer.allocate(size);
        buf.putInt(size - 4).putInt(0)
                .putLong(record.timestampMs()).putLong(record.publishedAtMs())
                .putShort((short) topic.length).put(topic)
                .putInt(key == null ? -1 : key.length);
        if (key != null) {
            buf.put(key);
        }
        buf.putInt(record.value().length).put(record.value());
        CRC32C crc = new CRC32C();
        crc.update(buf.array(), 8, size - 8);
        buf.putInt(4, (int) crc.getValue());
        buf.flip();
        long position = writePosition;
        while (buf.hasRemaining()) {
            position += channel.write(buf, position);
        }
        writePosition = position;
        unreadRecords++;
        unreadBytes += size;
    }

    /** The oldest unread record, or null when all were read. */
    PendingRecord poll() throws IOException {
        if (unreadRecords == 0) {
            return null;
        }
        PendingRecord record = readAt(readPosition);
        if (record == null) {
            throw new IOException("spill file " + path + " changed under us at offset " + readPosition);
        }
        int size = record.sizeBytes();
        readPosition += size;
        unreadRecords--;
        unreadBytes -= size;
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

    long id() {
        return id;
    }

    Path path() {
        return path;
    }

    int unreadRecords() {
        return unreadRecords;
    }

    long unreadBytes() {
        return unreadBytes;
    }

    long fileBytes() {
        return writePosition;
    }

    /** Makes what was appended durable against a machine crash, not only a process crash. */
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
