package io.rdmamon.jobs;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Writes the values of the app's binary internal formats ({@link JobEventBatchSerde}, {@link JobWindowsSerde}): a
 * string seen before in the same record is written as its index, so the node, device and job names that every port of
 * a record repeats cost a byte or two after the first. {@link CompactReader} reads it back in the same order.
 *
 * <p>The bytes are those of {@link DataOutputStream} (big-endian numbers, strings as {@code writeUTF}), written into a
 * plain array: the streams lock on every byte, and these writers run for every sample and every commit.
 */
class CompactWriter {
    private byte[] bytes;
    private int size;
    private final Map<String, Integer> strings = new HashMap<>();

    CompactWriter(int expectedSize) {
        this.bytes = new byte[Math.max(16, expectedSize)];
    }

    /** What was written. */
    final byte[] toByteArray() {
        return Arrays.copyOf(bytes, size);
    }

    final void string(String s) throws IOException {
        if (s == null) {
            varInt(0);
            return;
        }
        Integer index = strings.get(s);
        if (index != null) {
            varInt(index + 2);
            return;
        }
        strings.put(s, strings.size());
        varInt(1);
        utf(s);
    }

    final void nullableLong(Long value) {
        writeBoolean(value != null);
        if (value != null) {
            writeLong(value);
        }
    }

    final void nullableDouble(Double value) {
        writeBoolean(value != null);
        if (value != null) {
            writeDouble(value);
        }
    }

    final void counts(Map<String, Long> counts) throws IOException {
        varInt(counts.size());
        for (Map.Entry<String, Long> count : counts.entrySet()) {
            string(count.getKey());
            writeLong(count.getValue());
        }
    }

    final void varInt(int value) {
        while ((value & ~0x7F) != 0) {
            writeByte((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        writeByte(value);
    }

    final void writeByte(int value) {
        ensure(1);
        bytes[size++] = (byte) value;
    }

    final void writeBoolean(boolean value) {
        writeByte(value ? 1 : 0);
    }

    final void writeLong(long value) {
        ensure(8);
        for (int shift = 56; shift >= 0; shift -= 8) {
            bytes[size++] = (byte) (value >>> shift);
        }
    }

    final void writeDouble(double value) {
        writeLong(Double.doubleToLongBits(value));
    }

    final void write(byte[] value) {
        ensure(value.length);
        System.arraycopy(value, 0, bytes, size, value.length);
        size += value.length;
    }

    /** As {@link DataOutputStream#writeUTF}: a two-byte length, then the characters, one byte each when ASCII. */
    private void utf(String s) throws IOException {
        int length = s.length();
        if (length <= 0xFFFF && isAscii(s)) {
            ensure(2 + length);
            bytes[size++] = (byte) (length >>> 8);
            bytes[size++] = (byte) length;
            for (int i = 0; i < length; i++) {
                bytes[size++] = (byte) s.charAt(i);
            }
            return;
        }
        ByteArrayOutputStream encoded = new ByteArrayOutputStream(2 + 3 * length);
        new DataOutputStream(encoded).writeUTF(s); // other characters, or too long for the format: its own error
        write(encoded.toByteArray());
    }

    /** Characters 1 to 127: modified UTF-8 writes the character 0 in two bytes. */
    private static boolean isAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == 0 || c > 0x7F) {
                return false;
            }
        }
        return true;
    }

    private void ensure(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(2 * bytes.length, size + more));
        }
    }
}
