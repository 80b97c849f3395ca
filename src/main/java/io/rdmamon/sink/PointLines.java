package io.rdmamon.sink;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Line protocol lines, each ending in {@code \n}, as the converters render them: the points of one record (or of a
 * few), moved into request bodies by {@link WriteBodies} once the whole record has converted.
 */
final class PointLines {
    private final StringBuilder text = new StringBuilder(512);
    private int[] ends = new int[8];
    private int count;

    /** Where the next line is rendered; call {@link #endLine()} after it. */
    StringBuilder text() {
        return text;
    }

    void endLine() {
        text.append('\n');
        if (count == ends.length) {
            ends = Arrays.copyOf(ends, count * 2);
        }
        ends[count++] = text.length();
    }

    int count() {
        return count;
    }

    /** Characters of lines {@code [0, line)}, newlines included. */
    int end(int line) {
        return line == 0 ? 0 : ends[line - 1];
    }

    void clear() {
        text.setLength(0);
        count = 0;
    }

    /** The lines without their newlines. */
    List<String> lines() {
        List<String> lines = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            lines.add(text.substring(end(i), end(i + 1) - 1));
        }
        return lines;
    }
}
