package io.rdmamon.sink;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Line protocol lines, each ending in {@code \n}, UTF-8, as the converters render them: the points of one record (or
 * of a few), moved into request bodies by {@link WriteBodies} once the whole record has converted.
 */
final class PointLines {
    private final Utf8Buffer bytes = new Utf8Buffer(512);
    private int[] ends = new int[8];
    private int count;

    /** Where the next line is rendered; call {@link #endLine()} after it. */
    Utf8Buffer bytes() {
        return bytes;
    }

    void endLine() {
        bytes.append('\n');
        if (count == ends.length) {
            ends = Arrays.copyOf(ends, count * 2);
        }
        ends[count++] = bytes.length();
    }

    int count() {
        return count;
    }

    /** Bytes of lines {@code [0, line)}, newlines included. */
    int end(int line) {
        return line == 0 ? 0 : ends[line - 1];
    }

    void clear() {
        bytes.truncate(0);
        count = 0;
    }

    /** The lines without their newlines. */
    List<String> lines() {
        List<String> lines = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            lines.add(bytes.toString(end(i), end(i + 1) - 1));
        }
        return lines;
    }
}
