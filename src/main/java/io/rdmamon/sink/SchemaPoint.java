package io.rdmamon.sink;

import io.rdmamon.influx.MeasurementSpec;
import io.rdmamon.influx.MeasurementSpec.FieldType;

import java.math.BigDecimal;

/**
 * Builds one InfluxDB point of a declared {@link MeasurementSpec} and renders it as a line of line protocol: an
 * undeclared tag or field, or a value of the wrong type, is a programming error and throws. Unknown values (null, NaN,
 * infinite) leave the field out - never 0 - and a point left without fields is not written at all.
 *
 * <p>The line is the one influxdb-java's {@code Point.lineProtocol(MILLISECONDS)} renders (tags and fields sorted by
 * key, floats in plain decimal notation, integers with {@code i}), written straight into the request body: building
 * {@code Point}s and formatting their floats with {@code DecimalFormat} was 40% of the sink's CPU ({@code bench sink}
 * under JFR). Escaping: spaces, commas and equals signs in the measurement, tag keys, tag values and field keys;
 * quotes and backslashes in strings. What line protocol cannot express safely is normalised: line breaks and tabs
 * become spaces (tags and strings), and a backslash in a tag value becomes {@code /} (a tag value ending in a
 * backslash would escape the separator).
 */
final class SchemaPoint {
    private final MeasurementSpec spec;
    private final long timeMs;
    // arrays sized by the declaration, no maps: a point has at most the tags and fields its measurement declares
    private final String[] tagKeys;
    private final String[] tagValues;
    private final String[] fieldKeys;
    private final Object[] fieldValues;
    private int tags;
    private int fields;

    private SchemaPoint(MeasurementSpec spec, long timeMs) {
        this.spec = spec;
        this.timeMs = timeMs;
        this.tagKeys = new String[spec.tags().size()];
        this.tagValues = new String[spec.tags().size()];
        this.fieldKeys = new String[spec.fields().size()];
        this.fieldValues = new Object[spec.fields().size()];
    }

    static SchemaPoint of(MeasurementSpec spec, long timeMs) {
        return new SchemaPoint(spec, timeMs);
    }

    /** Adds a tag; null or blank values are left out (InfluxDB has no empty tags). */
    SchemaPoint tag(String key, Object value) {
        if (!spec.tags().contains(key)) {
            throw new IllegalStateException(spec.name() + " declares no tag " + key);
        }
        if (value != null) {
            String text = oneLine(value.toString());
            if (text.indexOf('\\') >= 0) {
                text = text.replace('\\', '/');
            }
            text = text.strip();
            if (!text.isEmpty()) {
                tags = put(tagKeys, tagValues, tags, key, text);
            }
        }
        return this;
    }

    SchemaPoint field(String key, Double value) {
        return put(key, FieldType.FLOAT, value != null && Double.isFinite(value) ? value : null);
    }

    SchemaPoint field(String key, Long value) {
        return put(key, FieldType.INTEGER, value);
    }

    SchemaPoint field(String key, String value) {
        return put(key, FieldType.STRING, value == null ? null : oneLine(value));
    }

    SchemaPoint field(String key, Boolean value) {
        return put(key, FieldType.BOOLEAN, value);
    }

    private SchemaPoint put(String key, FieldType type, Object value) {
        declared(key, type);
        if (value != null) {
            fields = put(fieldKeys, fieldValues, fields, key, value);
        }
        return this;
    }

    /** Inserts in key order (insertion sort: a handful of keys); a key set twice keeps its last value. */
    private static <V> int put(String[] keys, V[] values, int size, String key, V value) {
        int at = size;
        while (at > 0 && keys[at - 1].compareTo(key) >= 0) {
            at--;
        }
        if (at < size && keys[at].equals(key)) {
            values[at] = value;
            return size;
        }
        System.arraycopy(keys, at, keys, at + 1, size - at);
        System.arraycopy(values, at, values, at + 1, size - at);
        keys[at] = key;
        values[at] = value;
        return size + 1;
    }

    /** Renders the point into {@code points} unless it has no field; returns whether it did. */
    boolean addTo(PointLines points) {
        if (fields == 0) {
            return false;
        }
        Utf8Buffer line = points.bytes();
        appendEscaped(line, spec.name(), true);
        for (int i = 0; i < tags; i++) {
            appendEscaped(line.append(','), tagKeys[i], true);
            appendEscaped(line.append('='), tagValues[i], true);
        }
        for (int i = 0; i < fields; i++) {
            appendEscaped(line.append(i == 0 ? ' ' : ','), fieldKeys[i], true);
            appendValue(line.append('='), fieldValues[i]);
        }
        line.append(' ').append(timeMs);
        points.endLine();
        return true;
    }

    private static void appendValue(Utf8Buffer line, Object value) {
        if (value instanceof Double number) {
            appendFloat(line, number);
        } else if (value instanceof Long number) {
            line.append(number.longValue()).append('i');
        } else if (value instanceof String text) {
            appendEscaped(line.append('"'), text, false);
            line.append('"');
        } else {
            line.append(((Boolean) value).toString());
        }
    }

    /**
     * A finite float in plain decimal notation with at least one fraction digit, the shortest digits that read back
     * as the same double: what influxdb-java's {@code DecimalFormat} (1 to 340 fraction digits, no grouping) prints,
     * at a fraction of the cost.
     */
    static void appendFloat(Utf8Buffer line, double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            if (value == 0 && Double.doubleToRawLongBits(value) != 0) {
                line.append('-');
            }
            line.append((long) value).append(".0");
            return;
        }
        String shortest = Double.toString(value);
        String plain = shortest.indexOf('E') < 0 ? shortest : new BigDecimal(shortest).toPlainString();
        line.append(plain);
        if (plain.indexOf('.') < 0) {
            line.append(".0");
        }
    }

    /**
     * Appends {@code text} with a backslash before each special character: space, comma and equals sign in a
     * {@code key} (measurement, tag keys and values, field keys), quote and backslash in a string field.
     */
    private static void appendEscaped(Utf8Buffer line, String text, boolean key) {
        int n = text.length();
        line.ensure(2 * n);
        int start = line.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c >= 0x80) {
                // rare: escaped as chars, then the whole encoded at once (a surrogate pair stays whole)
                line.truncate(start);
                StringBuilder escaped = new StringBuilder(n + 8);
                for (int j = 0; j < n; j++) {
                    char d = text.charAt(j);
                    if (special(d, key)) {
                        escaped.append('\\');
                    }
                    escaped.append(d);
                }
                line.append(escaped.toString());
                return;
            }
            if (special(c, key)) {
                line.put('\\');
            }
            line.put(c);
        }
    }

    private static boolean special(char c, boolean key) {
        return key ? c == ' ' || c == ',' || c == '=' : c == '"' || c == '\\';
    }

    private void declared(String key, FieldType type) {
        MeasurementSpec.FieldSpec field = spec.field(key).orElseThrow(
                () -> new IllegalStateException(spec.name() + " declares no field " + key));
        if (field.type() != type) {
            throw new IllegalStateException(spec.name() + "." + key + " is " + field.type() + ", not " + type);
        }
    }

    private static String oneLine(String text) {
        if (text.indexOf('\n') < 0 && text.indexOf('\r') < 0 && text.indexOf('\t') < 0) {
            return text;
        }
        return text.replace("\r\n", " ").replace('\n', ' ').replace('\r', ' ').replace('\t', ' ');
    }
}
