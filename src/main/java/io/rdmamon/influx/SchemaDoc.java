package io.rdmamon.influx;

import java.util.stream.Collectors;

/** The {@link Schema} as Markdown, for docs/influxdb.md and {@code rdmamon influx schema}; a test keeps the docs in sync. */
public final class SchemaDoc {
    private SchemaDoc() {
    }

    public static String markdown() {
        StringBuilder sb = new StringBuilder();
        for (MeasurementSpec m : Schema.ALL) {
            sb.append("#### `").append(m.name()).append("` (from `").append(m.source()).append("`, time = `")
                    .append(m.timestamp()).append("`)\n\n");
            sb.append(Character.toUpperCase(m.doc().charAt(0))).append(m.doc().substring(1)).append(".\n\n");
            sb.append("Tags: ").append(m.tags().stream().map(t -> "`" + t + "`").collect(Collectors.joining(", ")))
                    .append("\n\n");
            sb.append("| field | type | unit | 1-minute rollup | meaning |\n|---|---|---|---|---|\n");
            for (MeasurementSpec.FieldSpec f : m.fields()) {
                sb.append("| `").append(f.name()).append("` | ").append(f.type().name().toLowerCase())
                        .append(" | ").append(f.unit()).append(" | ").append(rollup(f)).append(" | ")
                        .append(f.doc()).append(" |\n");
            }
            if (m.samplesField() != null) {
                sb.append("| `").append(Schema.SAMPLES).append("` | integer | count | rollup only: count(`")
                        .append(m.samplesField()).append("`) | raw points in the minute |\n");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static String rollup(MeasurementSpec.FieldSpec f) {
        if (f.rollup().isEmpty()) {
            return "-";
        }
        return f.rollup().stream()
                .map(a -> a.function() + " → `" + f.rollupName(a) + "`")
                .collect(Collectors.joining(", "));
    }
}
