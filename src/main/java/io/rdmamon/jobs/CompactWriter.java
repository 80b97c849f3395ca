package io.rdmamon.jobs;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Writes the values of the app's binary internal formats ({@link JobEventBatchSerde}, {@link JobWindowsSerde}): a
 * string seen before in the same record is written as its index, so the node, device and job names that every port of
 * a record repeats cost a byte or two after the first. {@link CompactReader} reads it back in the same order.
 */
class CompactWriter {
    private final ByteArrayOutputStream bytes;
    final DataOutputStream data;
    private final Map<String, Integer> strings = new HashMap<>();

    CompactWriter(int expectedSize) {
        this.bytes = new ByteArrayOutputStream(expectedSize);
        this.data = new DataOutputStream(bytes);
    }

    /** What was written. */
    byte[] toByteArray() {
        return bytes.toByteArray();
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
        data.writeUTF(s);
    }

    final void nullableLong(Long value) throws IOException {
        data.writeBoolean(value != null);
        if (value != null) {
            data.writeLong(value);
        }
    }

    final void nullableDouble(Double value) throws IOException {
        data.writeBoolean(value != null);
        if (value != null) {
            data.writeDouble(value);
        }
    }

    final void counts(Map<String, Long> counts) throws IOException {
        varInt(counts.size());
        for (Map.Entry<String, Long> count : counts.entrySet()) {
            string(count.getKey());
            data.writeLong(count.getValue());
        }
    }

    final void varInt(int value) throws IOException {
        while ((value & ~0x7F) != 0) {
            data.writeByte((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        data.writeByte(value);
    }
}
