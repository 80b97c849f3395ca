package io.rdmamon.jobs;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads what a {@link CompactWriter} wrote, in the same order. */
class CompactReader {
    final DataInputStream data;
    private final List<String> strings = new ArrayList<>();

    CompactReader(byte[] bytes) {
        this.data = new DataInputStream(new ByteArrayInputStream(bytes));
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
        String s = data.readUTF();
        strings.add(s);
        return s;
    }

    final Long nullableLong() throws IOException {
        return data.readBoolean() ? data.readLong() : null;
    }

    final Double nullableDouble() throws IOException {
        return data.readBoolean() ? data.readDouble() : null;
    }

    /** An empty map is the immutable {@code Map.of()}; otherwise insertion-ordered. */
    final Map<String, Long> counts() throws IOException {
        int size = varInt();
        if (size == 0) {
            return Map.of();
        }
        Map<String, Long> counts = new LinkedHashMap<>();
        for (int i = 0; i < size; i++) {
            counts.put(string(), data.readLong());
        }
        return counts;
    }

    final int varInt() throws IOException {
        int value = 0;
        for (int shift = 0; shift < 32; shift += 7) {
            int b = data.readUnsignedByte();
            value |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new IOException("malformed variable-length integer");
    }

    /** Whether every byte was read: a record with bytes left over is not what this release writes. */
    final boolean atEnd() throws IOException {
        return data.available() == 0;
    }
}
