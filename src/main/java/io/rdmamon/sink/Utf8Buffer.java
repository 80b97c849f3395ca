package io.rdmamon.sink;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable byte array that line protocol is rendered into, UTF-8 encoded: the bytes are those of
 * {@code String.getBytes(UTF_8)} of the same text. Rendering into a {@code StringBuilder}, copying that into the body
 * and encoding the body was a third of the sink's rendering CPU and a tenth of its allocation ({@code bench sink} under
 * JFR); text that is all ASCII, nearly all of it, is copied byte by byte here, once.
 */
final class Utf8Buffer {
    private byte[] bytes;
    private int length;

    Utf8Buffer(int capacity) {
        bytes = new byte[capacity];
    }

    int length() {
        return length;
    }

    /** Drops everything from {@code length} on. */
    void truncate(int length) {
        this.length = length;
    }

    /** Appends {@code c}, which must be ASCII. */
    Utf8Buffer append(char c) {
        ensure(1);
        bytes[length++] = (byte) c;
        return this;
    }

    /** Appends {@code c} to text being rendered char by char: ASCII only, after {@link #ensure} made room. */
    void put(char c) {
        bytes[length++] = (byte) c;
    }

    /** Makes room for {@code more} bytes; {@link #put} may then be called that many times. */
    void ensure(int more) {
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
        }
    }

    /** Appends {@code text} UTF-8 encoded. */
    Utf8Buffer append(String text) {
        int n = text.length();
        ensure(n);
        int start = length;
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c >= 0x80) {
                length = start;
                return append(text.getBytes(StandardCharsets.UTF_8));
            }
            bytes[length++] = (byte) c;
        }
        return this;
    }

    Utf8Buffer append(long value) {
        if (value < 0) {
            return append(Long.toString(value)); // rare (negative counts, times): no digit loop for the sign
        }
        int digits = 1;
        for (long rest = value / 10; rest > 0; rest /= 10) {
            digits++;
        }
        ensure(digits);
        length += digits;
        for (int at = length - 1; at >= length - digits; at--) {
            bytes[at] = (byte) ('0' + value % 10);
            value /= 10;
        }
        return this;
    }

    Utf8Buffer append(byte[] source) {
        return append(source, 0, source.length);
    }

    /** Appends {@code source[from, to)}. */
    Utf8Buffer append(byte[] source, int from, int to) {
        ensure(to - from);
        System.arraycopy(source, from, bytes, length, to - from);
        length += to - from;
        return this;
    }

    /** Appends bytes {@code [from, to)} of {@code other}. */
    Utf8Buffer append(Utf8Buffer other, int from, int to) {
        return append(other.bytes, from, to);
    }

    /** A copy of bytes {@code [from, to)}. */
    byte[] copy(int from, int to) {
        return Arrays.copyOfRange(bytes, from, to);
    }

    /** Bytes {@code [from, to)} decoded. */
    String toString(int from, int to) {
        return new String(bytes, from, to - from, StandardCharsets.UTF_8);
    }
}
