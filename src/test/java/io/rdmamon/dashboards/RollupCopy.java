package io.rdmamon.dashboards;

import io.rdmamon.influx.InfluxQl;
import io.rdmamon.influx.MeasurementSpec;
import io.rdmamon.influx.Schema;
import org.influxdb.InfluxDB;
import org.influxdb.dto.BatchPoints;
import org.influxdb.dto.Point;
import org.influxdb.dto.Query;
import org.influxdb.dto.QueryResult;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The 1-minute rollups of an InfluxDB 1.x database (computed by the continuous queries' own {@code SELECT ... INTO})
 * copied point by point into another server through the v1 write API. InfluxDB 2.x and 3 Core have no continuous
 * queries (2.x runs tasks, 3 Core processing-engine plugins, neither under test here), so the container tests give
 * them the very rollup points InfluxDB 1.x computed for the same scenario. Field types are the source's own
 * ({@code SHOW FIELD KEYS}): integers stay integers, as the continuous queries wrote them.
 */
final class RollupCopy {
    private RollupCopy() {
    }

    /** Copies every measurement of {@code fromRp}; returns the number of points written. */
    static int copy(InfluxDB from, String fromDb, String fromRp, InfluxDB to, String toDb, String toRp) {
        int copied = 0;
        for (MeasurementSpec m : Schema.ALL) {
            String source = InfluxQl.quote(fromRp) + "." + InfluxQl.quote(m.name());
            Map<String, String> types = fieldTypes(from, fromDb, source);
            QueryResult result = from.query(new Query("SELECT * FROM " + source + " GROUP BY *", fromDb),
                    TimeUnit.MILLISECONDS);
            BatchPoints.Builder batch = BatchPoints.database(toDb).retentionPolicy(toRp)
                    .precision(TimeUnit.MILLISECONDS);
            List<QueryResult.Series> series = result.getResults().get(0).getSeries();
            for (QueryResult.Series s : series == null ? List.<QueryResult.Series>of() : series) {
                for (List<Object> row : s.getValues()) {
                    batch.point(point(m.name(), s, row, types));
                    copied++;
                }
            }
            to.write(batch.build());
        }
        return copied;
    }

    private static Point point(String measurement, QueryResult.Series s, List<Object> row, Map<String, String> types) {
        Point.Builder point = Point.measurement(measurement)
                .time(((Number) row.get(0)).longValue(), TimeUnit.MILLISECONDS);
        // GROUP BY * reports a tag the point does not have as ""
        s.getTags().forEach((tag, value) -> {
            if (!value.isEmpty()) {
                point.tag(tag, value);
            }
        });
        for (int i = 1; i < row.size(); i++) {
            Object value = row.get(i);
            String field = s.getColumns().get(i);
            if (value == null) {
                continue;
            }
            switch (types.get(field)) {
                case "integer" -> point.addField(field, ((Number) value).longValue());
                case "float" -> point.addField(field, ((Number) value).doubleValue());
                case "boolean" -> point.addField(field, (Boolean) value);
                default -> point.addField(field, value.toString());
            }
        }
        return point.build();
    }

    private static Map<String, String> fieldTypes(InfluxDB influx, String database, String source) {
        Map<String, String> types = new HashMap<>();
        List<QueryResult.Series> series = InfluxQl.execute(influx, database, "SHOW FIELD KEYS FROM " + source)
                .getResults().get(0).getSeries();
        for (QueryResult.Series s : series == null ? List.<QueryResult.Series>of() : series) {
            s.getValues().forEach(row -> types.put((String) row.get(0), (String) row.get(1)));
        }
        return types;
    }
}
