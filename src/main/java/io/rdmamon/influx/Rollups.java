package io.rdmamon.influx;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.rdmamon.influx.InfluxQl.quote;

/**
 * The 1-minute rollups, generated from the {@link Schema}: for every measurement one continuous query that writes
 * {@code <rollup rp>.<measurement>} from {@code <raw rp>.<measurement>}, grouped by every tag. Rates become their
 * 1-minute mean under the same field name plus {@code <field>_max}; increments are summed; states keep their last
 * value; {@code samples} counts the raw points. So a dashboard query works on both retention policies.
 */
public final class Rollups {
    public static final String INTERVAL = "1m";

    private Rollups() {
    }

    public static String continuousQueryName(MeasurementSpec m) {
        return "cq_" + m.name() + "_" + INTERVAL;
    }

    /** {@code CREATE CONTINUOUS QUERY ...} for one measurement. */
    public static String createContinuousQuery(MeasurementSpec m, InfluxSettings s) {
        return "CREATE CONTINUOUS QUERY " + quote(continuousQueryName(m)) + " ON " + quote(s.database())
                + " RESAMPLE EVERY " + INTERVAL + " FOR " + s.rollupResampleMinutes() + "m BEGIN "
                + select(m, s, "") + " END";
    }

    /** The same rollup as a one-off {@code SELECT ... INTO} over the last {@code span}: recomputes after an outage. */
    public static String backfill(MeasurementSpec m, InfluxSettings s, Duration span) {
        return select(m, s, " WHERE time >= now() - " + Math.max(60, span.toSeconds()) + "s");
    }

    private static String select(MeasurementSpec m, InfluxSettings s, String where) {
        List<String> columns = new ArrayList<>();
        for (MeasurementSpec.FieldSpec field : m.fields()) {
            for (MeasurementSpec.Rollup aggregate : field.rollup()) {
                columns.add(aggregate.function() + "(" + quote(field.name()) + ") AS "
                        + quote(field.rollupName(aggregate)));
            }
        }
        if (m.samplesField() != null) {
            columns.add("count(" + quote(m.samplesField()) + ") AS " + quote(Schema.SAMPLES));
        }
        return "SELECT " + String.join(", ", columns)
                + " INTO " + quote(s.database()) + "." + quote(s.rollupRetentionPolicy()) + "." + quote(m.name())
                + " FROM " + quote(s.database()) + "." + quote(s.retentionPolicy()) + "." + quote(m.name())
                + where + " GROUP BY time(" + INTERVAL + "), *";
    }
}
