package io.rdmamon.testing;

import io.rdmamon.influx.InfluxQl;
import io.rdmamon.influx.InfluxdProcess;
import org.influxdb.InfluxDB;
import org.influxdb.InfluxDBFactory;
import org.influxdb.dto.QueryResult;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Real InfluxDB 1.x servers for tests (Debian's {@code influxd}, installed by {@code scripts/test}): one shared server
 * per test JVM, or private ones for tests that stop, restart or secure theirs. A missing {@code influxd} fails the
 * test with the install command - it never skips. Each test uses its own database ({@link #uniqueDatabase}).
 */
public final class LocalInfluxd {
    private static InfluxdProcess shared;

    private LocalInfluxd() {
    }

    /** The shared server (started on first use, stopped at JVM exit). Do not stop it. */
    public static synchronized InfluxdProcess shared() {
        if (shared == null) {
            shared = InfluxdProcess.startInTempDir(false);
        }
        return shared;
    }

    /** A private server the caller closes: for outage and authentication tests. */
    public static InfluxdProcess start(boolean authEnabled) {
        return InfluxdProcess.startInTempDir(authEnabled);
    }

    public static String uniqueDatabase(String base) {
        return base + "_" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** An unauthenticated client; the caller closes it. */
    public static InfluxDB client(InfluxdProcess influxd) {
        return InfluxDBFactory.connect(influxd.url());
    }

    /** The rows of an InfluxQL query's first series (empty when there is none). */
    public static List<List<Object>> rows(InfluxDB influx, String database, String query) {
        QueryResult result = InfluxQl.execute(influx, database, query);
        List<QueryResult.Series> series = result.getResults().get(0).getSeries();
        return series == null || series.isEmpty() ? List.of() : series.get(0).getValues();
    }

    /** Every row of the first series as column → value, times as epoch ms (numbers come back as doubles). */
    public static List<Map<String, Object>> rowMaps(InfluxDB influx, String database, String query) {
        QueryResult result = InfluxQl.query(influx, database, query);
        List<QueryResult.Series> series = result.getResults().get(0).getSeries();
        if (series == null || series.isEmpty()) {
            return List.of();
        }
        List<String> columns = series.get(0).getColumns();
        List<Map<String, Object>> rows = new ArrayList<>();
        for (List<Object> values : series.get(0).getValues()) {
            Map<String, Object> row = new LinkedHashMap<>();
            for (int i = 0; i < columns.size(); i++) {
                row.put(columns.get(i), values.get(i));
            }
            rows.add(row);
        }
        return rows;
    }

    /**
     * {@code SELECT count(field) FROM measurement} in one retention policy ({@code null}: the database's default,
     * unqualified), 0 when there are no points.
     */
    public static long count(InfluxDB influx, String database, String rp, String measurement, String field) {
        String from = (rp == null ? "" : InfluxQl.quote(rp) + ".") + InfluxQl.quote(measurement);
        List<List<Object>> rows = rows(influx, database, "SELECT count(" + InfluxQl.quote(field) + ") FROM " + from);
        return rows.isEmpty() ? 0 : ((Number) rows.get(0).get(1)).longValue();
    }
}
