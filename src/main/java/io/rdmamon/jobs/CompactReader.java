package io.rdmamon.jobs;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads what a {@link CompactWriter} wrote, in the same order, from a plain array (the bytes of
 * {@link java.io.DataOutputStream}). Reading past the end fails with an {@link EOFException}.
 */
class CompactReader {
    private final byte[] bytes;
    private int position;
    private final List<String> strings = new ArrayList<>();

    CompactReader(byte[] bytes) {
        this.bytes = bytes;
    }

    final String string() throws IOException {
        int index = varInt();
        if (index == 0) {
            return null;
        }
        if (index > 1) {
            if (index - 2 >= strings.size()) {
                throw new IOException("string index " + (index - 2) + " before its string");
            }
            return strings.get(index - 2);
        }
        String s = utf();
        strings.add(s);
        return s;
    }

    final Long nullableLong() throws IOException {
        return readBoolean() ? readLong() : null;
    }

    final Double nullableDouble() throws IOException {
        return readBoolean() ? readDouble() : null;
    }

    /** An empty map is the immutable {@code Map.of()}; otherwise insertion-ordered. */
    final Map<String, Long> counts() throws IOException {
        int size = varInt();
        if (size == 0) {
            return Map.of();
        }
        Map<String, Long> counts = new LinkedHashMap<>();
        for (int i = 0; i < size; i++) {
            counts.put(string(), readLong());
        }
        return counts;
    }

    final int varInt() throws IOException {
        int value = 0;
        for (int shift = 0; shift < 32; shift += 7) {
            int b = readByte() & 0xFF;
            value |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new IOException("malformed variable-length integer");
    }

    final byte readByte() throws IOException {
        need(1);
        return bytes[position++];
    }

    final boolean readBoolean() throws IOException {
        return readByte() != 0;
    }

    final long readLong() throws IOException {
        need(8);
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = value << 8 | (bytes[position++] & 0xFF);
        }
        return value;
    }

    final double readDouble() throws IOException {
        return Double.longBitsToDouble(readLong());
    }

    final void readFully(byte[] into) throws IOException {
        need(into.length);
        System.arraycopy(bytes, position, into, 0, into.length);
        position += into.length;
    }

    /** Whether every byte was read: a record with bytes left over is not what this release writes. */
    final boolean atEnd() {
        return position == bytes.length;
    }

    /** As {@link DataInputStream#readUTF}: ASCII directly, anything else through it. */
    private String utf() throws IOException {
        need(2);
        int length = (bytes[position] & 0xFF) << 8 | (bytes[position + 1] & 0xFF);
        need(2 + length);
        int start = position + 2;
        for (int i = start; i < start + length; i++) {
            if (bytes[i] <= 0) { // 0 or above 127: a multi-byte character
                DataInputStream data = new DataInputStream(new ByteArrayInputStream(bytes, position, 2 + length));
                String s = data.readUTF();
                position += 2 + length;
                return s;
            }
        }
        position = start + length;
        return new String(bytes, start, length, StandardCharsets.ISO_8859_1);
    }

    private void need(int count) throws EOFException {
        if (count > bytes.length - position) {
            throw new EOFException("the record ends early (" + count + " more bytes needed at byte " + position
                    + " of " + bytes.length + ")");
        }
    }
}
