package io.rdmamon.collector.sysfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

/**
 * Reads the small files of sysfs the cheap way: one reused buffer (a sysfs attribute is at most one page), numbers
 * parsed straight from the bytes, no regex. Applies the unknown-value policy in one place: a file that is absent gives
 * {@code null} silently (drivers differ in what they create, and a device can vanish mid-pass); one that cannot be
 * read or holds garbage gives {@code null} and is reported to {@link ReadProblems}; {@code N/A (no PMA)} gives
 * {@code null} with a one-time note. Never 0 for an unknown. Not thread-safe: one instance per sampling thread.
 *
 * <p>Files stay open between passes and are re-read with a positional read at offset 0: sysfs regenerates an
 * attribute on every read from offset 0, so one system call per file replaces open/fstat/read/close. A file that
 * fails to read is closed and opened again once (a driver reload leaves the old descriptor answering ENODEV), and
 * {@link #endPass()} closes the files a pass did not read, so one that disappears and comes back is opened afresh.
 * Files read every pass are named by an {@link Attribute} made at a scan, which holds its descriptor itself: a pass
 * reads ~800 of them, and finding each descriptor by path was a fifth of the sampling thread's time.
 */
public final class SysfsFiles {
    private static final String[] NONE = new String[0];
    private static final int MAX_BYTES = 4096;
    /** Up to 18 digits cannot overflow a signed long; longer values take the slow unsigned path. */
    private static final int FAST_DIGITS = 18;
    private static final int MAX_SHOWN = 80;

    /** Read into directly: a heap buffer would be read into a temporary direct one and copied (17 % of a read's CPU). */
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(MAX_BYTES + 1);
    /** What the last read gave, parsed from here. */
    private final byte[] bytes = new byte[MAX_BYTES + 1];
    private final ReadProblems problems;
    /** Every attribute holding a descriptor. */
    private final List<Attribute> open = new ArrayList<>();
    private long pass;
    /** Attributes of {@link #open} read in this pass: when all were, {@link #endPass()} has nothing to close. */
    private int readThisPass;
    private long absentReads;
    private int start;
    private int end;
    private long counter;

    private final boolean holdOpen;

    /** Opens each file per read: for trees that writers replace by renaming (the simulator), not real sysfs. */
    public SysfsFiles(ReadProblems problems) {
        this(problems, false);
    }

    /**
     * @param holdOpen keep files open between passes; only for real sysfs, where a read at offset 0 regenerates the
     *                 value (a file replaced by rename would keep answering its old content through the descriptor)
     */
    public SysfsFiles(ReadProblems problems, boolean holdOpen) {
        this.problems = problems;
        this.holdOpen = holdOpen;
    }

    public ReadProblems problems() {
        return problems;
    }

    /** The entries of a folder, sorted; empty when it does not exist. */
    public static String[] list(Path dir) {
        String[] names = dir.toFile().list();
        if (names == null) {
            return NONE;
        }
        Arrays.sort(names);
        return names;
    }

    /**
     * The trimmed content of a text attribute, or {@code null} when absent, empty or unreadable. For a file read now
     * and then (a held descriptor is closed at the end of the next pass); a file read every pass is an
     * {@link Attribute}.
     */
    public String readText(String device, Path file) {
        return readText(device, new Attribute(file));
    }

    String readText(String device, Attribute attribute) {
        if (!load(device, attribute) || start == end) {
            return null;
        }
        return new String(bytes, start, end - start, StandardCharsets.UTF_8);
    }

    /** An unsigned decimal counter, or {@code null} when unknown (boxed: for files read now and then). */
    public Long readCounter(String device, Path file) {
        return readCounter(device, new Attribute(file));
    }

    Long readCounter(String device, Attribute attribute) {
        return readCounterValue(device, attribute) ? counter : null;
    }

    /**
     * Reads an unsigned decimal counter without boxing it: true when its value is known, and {@link #counterValue()}
     * gives it (64-bit values above {@link Long#MAX_VALUE} come back negative, as unsigned).
     */
    boolean readCounterValue(String device, Attribute attribute) {
        if (!load(device, attribute)) {
            return false;
        }
        Path file = attribute.path;
        int length = end - start;
        if (length > 0 && length <= FAST_DIGITS) {
            long value = 0;
            int i = start;
            for (; i < end; i++) {
                int digit = bytes[i] - '0';
                if (digit < 0 || digit > 9) {
                    break;
                }
                value = value * 10 + digit;
            }
            if (i == end) {
                counter = value;
                return true;
            }
        }
        if (startsWith("N/A")) {
            problems.note("no-pma|" + file.getParent(), file.getParent() + ": counters read '" + shown()
                    + "' (the driver has no performance management agent): these counters are unknown");
            return false;
        }
        try {
            if (length > FAST_DIGITS && bytes[start] != '+') {
                counter = Long.parseUnsignedLong(new String(bytes, start, length, StandardCharsets.US_ASCII));
                return true;
            }
        } catch (NumberFormatException e) {
            // falls through to the report below
        }
        problems.error(device, file, "not a counter value: '" + shown() + "'");
        return false;
    }

    /** The value {@link #readCounterValue} read last. */
    public long counterValue() {
        return counter;
    }

    /**
     * Closes the files this pass did not read (their device or folder went away), so that a file that comes back
     * (driver reload, hot-plug) is opened afresh rather than read through a descriptor of the old one.
     */
    public void endPass() {
        // every attribute counted in readThisPass is in the list: equal sizes mean none went unread
        if (readThisPass != open.size()) {
            for (Iterator<Attribute> it = open.iterator(); it.hasNext(); ) {
                Attribute attribute = it.next();
                if (attribute.pass != pass) {
                    closeQuietly(attribute.channel);
                    attribute.channel = null;
                    it.remove();
                }
            }
        }
        readThisPass = 0;
        pass++;
    }

    /** How many reads so far found no file: a reader that caches folder listings rescans when this moves. */
    public long absentReads() {
        return absentReads;
    }

    /** Reads the file into the buffer and trims it; false when absent or unreadable. */
    private boolean load(String device, Attribute attribute) {
        Path file = attribute.path;
        if (!holdOpen) {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                readPositional(channel);
            } catch (NoSuchFileException e) {
                absentReads++;
                return false;
            } catch (IOException e) {
                problems.error(device, file, "unreadable: " + describe(e, file));
                return false;
            }
            return trim(device, file);
        }
        try {
            if (attribute.channel == null || !readFrom(attribute.channel)) {
                // not open yet, or the open descriptor failed (device removed under it): open the file again
                release(attribute);
                attribute.channel = FileChannel.open(file, StandardOpenOption.READ);
                open.add(attribute);
                readPositional(attribute.channel);
            }
            if (attribute.pass != pass) {
                attribute.pass = pass;
                readThisPass++;
            }
        } catch (NoSuchFileException e) {
            absentReads++;
            return false;
        } catch (IOException e) {
            release(attribute);
            problems.error(device, file, "unreadable: " + describe(e, file));
            return false;
        }
        return trim(device, file);
    }

    /** Trims the bytes just read; false when the file filled the buffer (not a sysfs attribute). */
    private boolean trim(String device, Path file) {
        if (!buffer.hasRemaining()) {
            problems.error(device, file, "larger than " + MAX_BYTES + " bytes, not a sysfs attribute");
            return false;
        }
        start = 0;
        end = buffer.position();
        while (start < end && isBlank(bytes[start])) {
            start++;
        }
        while (end > start && isBlank(bytes[end - 1])) {
            end--;
        }
        return true;
    }

    /** A read of an open file; false when its descriptor no longer answers. */
    private boolean readFrom(FileChannel channel) {
        try {
            readPositional(channel);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * One read from offset 0: sysfs hands a whole attribute over in it (and would generate it again for a read at
     * another offset), and a regular file this small comes whole as well; a file that fills the buffer is refused.
     */
    private void readPositional(FileChannel channel) throws IOException {
        buffer.clear();
        channel.read(buffer, 0);
        buffer.get(0, bytes, 0, buffer.position());
    }

    /** Closes an attribute's descriptor, if it holds one, and takes it off the open list (rare: a read failed). */
    private void release(Attribute attribute) {
        if (attribute.channel != null) {
            closeQuietly(attribute.channel);
            attribute.channel = null;
            open.remove(attribute);
            if (attribute.pass == pass) {
                readThisPass--; // it counted as one of the open ones read
            }
        }
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // nothing was written through it; a failed close loses nothing
        }
    }

    /**
     * A sysfs attribute file read pass after pass, made once per scan ({@link CounterFiles}); it holds the descriptor
     * between passes when files are kept open. Belongs to the {@link SysfsFiles} that reads it.
     */
    static final class Attribute {
        final Path path;
        /** the descriptor, {@code null} while the attribute is not in its reader's open list */
        private FileChannel channel;
        /** the pass that last read it */
        private long pass = -1;

        Attribute(Path path) {
            this.path = path;
        }
    }

    private boolean startsWith(String prefix) {
        if (end - start < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (bytes[start + i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** The content as it may go into a log line: bounded, control characters escaped. */
    private String shown() {
        StringBuilder text = new StringBuilder();
        for (int i = start; i < end && text.length() < MAX_SHOWN; i++) {
            int b = bytes[i] & 0xff;
            if (b < 0x20 || b > 0x7e) {
                text.append(String.format("\\x%02x", b));
            } else {
                text.append((char) b);
            }
        }
        return end - start > MAX_SHOWN ? text + "..." : text.toString();
    }

    private static boolean isBlank(byte b) {
        return b == ' ' || b == '\n' || b == '\t' || b == '\r' || b == 0;
    }

    static String describe(IOException e, Path file) {
        String message = e.getMessage();
        String name = e.getClass().getSimpleName();
        return message == null || message.equals(file.toString()) ? name : name + " " + message;
    }
}
