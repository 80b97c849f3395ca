package io.rdmamon.sink;

import io.rdmamon.influx.MeasurementSpec;
import io.rdmamon.influx.MeasurementSpec.FieldType;
import org.influxdb.dto.Point;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Builds one InfluxDB point of a declared {@link MeasurementSpec}: an undeclared tag or field, or a value of the wrong
 * type, is a programming error and throws. Unknown values (null, NaN, infinite) leave the field out - never 0 - and a
 * point left without fields is not written at all.
 *
 * <p>Line protocol: influxdb-java escapes spaces, commas and equals signs in tags and quotes and backslashes in
 * strings. What it cannot express safely is normalised here: line breaks and tabs become spaces (tags and strings),
 * and a backslash in a tag value becomes {@code /} (a tag value ending in a backslash would escape the separator).
 */
final class SchemaPoint {
    private final MeasurementSpec spec;
    private final Point.Builder builder;
    private int fields;

    private SchemaPoint(MeasurementSpec spec, long timeMs) {
        this.spec = spec;
        this.builder = Point.measurement(spec.name()).time(timeMs, TimeUnit.MILLISECONDS);
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
                builder.tag(key, text);
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
        if (value instanceof Number number) {
            builder.addField(key, number);
        } else if (value instanceof String text) {
            builder.addField(key, text);
        } else if (value instanceof Boolean flag) {
            builder.addField(key, flag.booleanValue());
        } else {
            return this;
        }
        fields++;
        return this;
    }

    /** Adds the point to {@code points} unless it has no field; returns whether it did. */
    boolean addTo(List<Point> points) {
        if (fields == 0) {
            return false;
        }
        points.add(builder.build());
        return true;
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
