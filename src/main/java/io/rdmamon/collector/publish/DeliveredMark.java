package io.rdmamon.collector.publish;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * The spill log's checkpoint: every record with a lower sequence number was acknowledged by Kafka (or given up), so a
 * restart replays from here. One small file, {@code delivered}: {@code long seq, int crc32c(seq)}, overwritten in place
 * (12 bytes, one disk sector, so a power cut leaves the old or the new value). A damaged mark reads as 0: the whole
 * log is replayed, which duplicates records but loses none.
 *
 * <p>It is fsynced only on close: a mark older than the truth costs duplicates, never a loss (Kafka has the records
 * below the true mark), so the flush clock spends its fsync on the segments alone.
 */
final class DeliveredMark implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(DeliveredMark.class);
    static final String FILE = "delivered";
    private static final int BYTES = 12;

    private final Path path;
    private final FileChannel channel;
    private final ByteBuffer buf = ByteBuffer.allocate(BYTES);
    private final CRC32C crc = new CRC32C();

    private DeliveredMark(Path path, FileChannel channel) {
        this.path = path;
        this.channel = channel;
    }

    static DeliveredMark open(Path dir) throws IOException {
        Path path = dir.resolve(FILE);
        return new DeliveredMark(path, FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE));
    }

    /** The mark an earlier run left; 0 when there is none or it is damaged (logged). */
    long read() throws IOException {
        if (channel.size() == 0) {
            return 0;
        }
        buf.clear();
        while (buf.hasRemaining() && channel.read(buf, buf.position()) > 0) {
            // read all 12 bytes
        }
        buf.flip();
        if (buf.remaining() == BYTES) {
            long seq = buf.getLong();
            if (buf.getInt() == checksum(seq)) {
                return seq;
            }
        }
        log.warn("spill directory: the delivered mark {} is damaged; replaying every record kept (some may be sent "
                + "twice)", path);
        return 0;
    }

    /** Records that everything below {@code seq} was delivered; durably when {@code force}. */
    void write(long seq, boolean force) throws IOException {
        buf.clear();
        buf.putLong(seq).putInt(checksum(seq)).flip();
        while (buf.hasRemaining()) {
            channel.write(buf, buf.position());
        }
        if (force) {
            channel.force(false);
        }
    }

    private int checksum(long seq) {
        crc.reset();
        for (int shift = 56; shift >= 0; shift -= 8) {
            crc.update((int) (seq >>> shift));
        }
        return (int) crc.getValue();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
