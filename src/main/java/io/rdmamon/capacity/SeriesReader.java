package io.rdmamon.capacity;

import io.rdmamon.influx.InfluxQl;
import org.influxdb.InfluxDB;
import org.influxdb.dto.QueryResult;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Runs one InfluxQL query and flattens its series into rows of tags and column values (times in epoch ms). */
final class SeriesReader {
    /** One result row: the series' tags and the row's columns; numbers are doubles, {@code time} epoch ms. */
    record Row(Map<String, String> tags, Map<String, Object> values) {
        String tag(String key) {
            return tags.get(key);
        }

        Double number(String column) {
            Object value = values.get(column);
            return value instanceof Number n ? n.doubleValue() : null;
        }

        String time() {
            Double ms = number("time");
            return ms == null ? null : Instant.ofEpochMilli(ms.longValue()).toString();
        }
    }

    private final InfluxDB influx;
    private final String database;

    SeriesReader(InfluxDB influx, String database) {
        this.influx = influx;
        this.database = database;
    }

    List<Row> rows(String query) {
        QueryResult result = InfluxQl.query(influx, database, query);
        List<Row> rows = new ArrayList<>();
        if (result.getResults() == null || result.getResults().get(0).getSeries() == null) {
            return rows;
        }
        for (QueryResult.Series series : result.getResults().get(0).getSeries()) {
            Map<String, String> tags = series.getTags() == null ? Map.of() : series.getTags();
            for (List<Object> values : series.getValues()) {
                Map<String, Object> row = new HashMap<>();
                for (int i = 0; i < series.getColumns().size(); i++) {
                    row.put(series.getColumns().get(i), values.get(i));
                }
                rows.add(new Row(tags, row));
            }
        }
        return rows;
    }
}
