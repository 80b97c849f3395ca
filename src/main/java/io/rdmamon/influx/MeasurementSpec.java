package io.rdmamon.influx;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * One InfluxDB measurement as rdmamon writes it: its tags, its typed fields with units, and how each field is rolled
 * up into 1-minute points. The sink refuses to write anything not declared here, the continuous queries are generated
 * from it, and the docs/influxdb.md table is printed from it, so the three cannot drift apart.
 *
 * @param samplesField a field present on every point, counted into the rollup's {@code samples}; null if none is
 */
public record MeasurementSpec(String name, String source, String timestamp, List<String> tags, List<FieldSpec> fields,
                              String samplesField, String doc) {

    public MeasurementSpec {
        tags = List.copyOf(tags);
        fields = List.copyOf(fields);
        for (FieldSpec field : fields) {
            if (tags.contains(field.name())) {
                // InfluxDB 3 rejects a tag and a field with the same name; 1.x makes queries ambiguous
                throw new IllegalArgumentException(name + ": " + field.name() + " is both a tag and a field");
            }
        }
    }

    public Optional<FieldSpec> field(String fieldName) {
        // a plain loop: the sink calls this for every field of every point
        for (FieldSpec f : fields) {
            if (f.name().equals(fieldName)) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }

    public enum FieldType { FLOAT, INTEGER, STRING, BOOLEAN }

    /** How a field becomes a 1-minute rollup field; the first aggregate keeps the field's name. */
    public enum Rollup {
        MEAN, MAX, MIN, SUM, LAST;

        public String function() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** A field: name, type, unit (base units: bytes/s, seconds, fractions 0..1) and rollup aggregates. */
    public record FieldSpec(String name, FieldType type, String unit, String doc, List<Rollup> rollup) {
        public FieldSpec {
            rollup = List.copyOf(rollup);
        }

        /** The rollup field name for one of this field's aggregates: {@code tx_bytes_per_sec}, {@code ..._max}. */
        public String rollupName(Rollup aggregate) {
            return rollup.indexOf(aggregate) == 0 ? name : name + "_" + aggregate.function();
        }
    }
}
