package io.rdmamon.collector.sysfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * Reads the small files of sysfs the cheap way: one reused buffer (a sysfs attribute is at most one page), numbers
 * parsed straight from the bytes, no regex. Applies the unknown-value policy in one place: a file that is absent gives
 * {@code null} silently (drivers differ in what they create, and a device can vanish mid-pass); one that cannot be
 * read or holds garbage gives {@code null} and is reported to {@link ReadProblems}; {@code N/A (no PMA)} gives
 * {@code null} with a one-time note. Never 0 for an unknown. Not thread-safe: one instance per sampling thread.
 */
public final class SysfsFiles {
    private static final String[] NONE = new String[0];
    private static final int MAX_BYTES = 4096;
    /** Up to 18 digits cannot overflow a signed long; longer values take the slow unsigned path. */
    private static final int FAST_DIGITS = 18;
    private static final int MAX_SHOWN = 80;

    private final byte[] bytes = new byte[MAX_BYTES + 1];
    private final ByteBuffer buffer = ByteBuffer.wrap(bytes);
    private final ReadProblems problems;
    private int start;
    private int end;

    public SysfsFiles(ReadProblems problems) {
        this.problems = problems;
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

    /** The trimmed content of a text attribute, or {@code null} when absent, empty or unreadable. */
    public String readText(String device, Path file) {
        if (!load(device, file) || start == end) {
            return null;
        }
        return new String(bytes, start, end - start, StandardCharsets.UTF_8);
    }

    /** An unsigned decimal counter (64-bit values above {@link Long#MAX_VALUE} come back negative, as unsigned). */
    public Long readCounter(String device, Path file) {
        if (!load(device, file)) {
            return null;
        }
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
                return value;
            }
        }
        if (startsWith("N/A")) {
            problems.note("no-pma|" + file.getParent(), file.getParent() + ": counters read '" + shown()
                    + "' (the driver has no performance management agent): these counters are unknown");
            return null;
        }
        try {
            if (length > FAST_DIGITS && bytes[start] != '+') {
                return Long.parseUnsignedLong(new String(bytes, start, length, StandardCharsets.US_ASCII));
            }
        } catch (NumberFormatException e) {
            // falls through to the report below
        }
        problems.error(device, file, "not a counter value: '" + shown() + "'");
        return null;
    }

    /** Reads the file into the buffer and trims it; false when absent or unreadable. */
    private boolean load(String device, Path file) {
        buffer.clear();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
                // sysfs hands the whole attribute over in the first read; the loop only guards odd filesystems
            }
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            problems.error(device, file, "unreadable: " + describe(e, file));
            return false;
        }
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
