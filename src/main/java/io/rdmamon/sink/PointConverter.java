package io.rdmamon.sink;

import java.util.List;

/**
 * Turns one record type into InfluxDB points of the {@link io.rdmamon.influx.Schema}, rendered as line protocol. A
 * record that breaks its topic's contract (unsupported version, missing identity) throws
 * {@link IllegalArgumentException} with the reason: the sink dead-letters it and goes on.
 */
interface PointConverter<T> {
    Class<T> type();

    /**
     * Appends the record's points to {@code points}; throws when the record is invalid, and the caller drops what it
     * appended.
     */
    void render(T record, PointLines points);

    /** The record's points, one line protocol line each (for tests and tools; the sink renders into bodies). */
    default List<String> toLines(T record) {
        PointLines points = new PointLines();
        render(record, points);
        return points.lines();
    }

    static String required(String value, String name) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("missing " + name);
        }
        return value;
    }

    /** Event times are epoch ms; 0 is what a missing JSON field decodes to. */
    static void requiredTime(long epochMs, String name) {
        if (epochMs <= 0) {
            throw new IllegalArgumentException("missing or invalid " + name + " (" + epochMs + ")");
        }
    }

    static void checkVersion(int v, int supported) {
        if (v < 1 || v > supported) {
            throw new IllegalArgumentException("unsupported schema version v=" + v + " (this sink reads v=1.."
                    + supported + ")");
        }
    }
}
