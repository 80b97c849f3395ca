package io.rdmamon.influx;

import org.influxdb.InfluxDB;
import org.influxdb.InfluxDBException;
import org.influxdb.dto.Query;
import org.influxdb.dto.QueryResult;

import java.util.concurrent.TimeUnit;

/** Runs InfluxQL statements through influxdb-java and turns statement errors (HTTP 200 with "error") into exceptions. */
public final class InfluxQl {
    private InfluxQl() {
    }

    /** Runs {@code statement} with POST (required by statements that change anything) against {@code database}. */
    public static QueryResult execute(InfluxDB influx, String database, String statement) {
        return checked(influx.query(new Query(statement, database, true)), statement);
    }

    /** Runs a read-only {@code query} (GET) against {@code database}; times come back as epoch ms. */
    public static QueryResult query(InfluxDB influx, String database, String query) {
        return checked(influx.query(new Query(query, database), TimeUnit.MILLISECONDS), query);
    }

    private static QueryResult checked(QueryResult result, String statement) {
        String error = result.getError();
        if (error == null && result.getResults() != null) {
            error = result.getResults().stream().map(QueryResult.Result::getError)
                    .filter(e -> e != null).findFirst().orElse(null);
        }
        if (error != null) {
            throw new InfluxDBException(error + " (statement: " + statement + ")");
        }
        return result;
    }

    /** A double-quoted identifier: {@code rp_raw} → {@code "rp_raw"}. */
    public static String quote(String identifier) {
        return '"' + identifier.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}
