package io.rdmamon.sink;

import io.rdmamon.support.Excerpt;
import io.rdmamon.influx.InfluxSettings;
import org.influxdb.InfluxDB;
import org.influxdb.InfluxDBException;
import org.influxdb.dto.BatchPoints;
import org.influxdb.dto.Point;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Writes points synchronously through influxdb-java's v1 API ({@code POST /write?db=&rp=&precision=ms}): when
 * {@link #write} returns, InfluxDB has accepted the points. Failures are sorted in two:
 * <ul>
 *   <li>the server refused some points for good (HTTP 400: field type conflict, beyond the retention policy,
 *   unparseable): it wrote the others, a retry cannot help, so the refusal is logged and counted and the write
 *   counts as done;</li>
 *   <li>anything else (connection refused, timeout, 5xx, missing database, authentication) may heal:
 *   {@link RetriableException}.</li>
 * </ul>
 */
public final class InfluxWriter {
    private static final Logger log = LoggerFactory.getLogger(InfluxWriter.class);

    private final InfluxDB influx;
    private final String database;
    private final String retentionPolicy;
    private final SinkMetrics metrics;

    public InfluxWriter(InfluxDB influx, InfluxSettings settings, SinkMetrics metrics) {
        this.influx = influx;
        this.database = settings.database();
        // empty: let the server pick (3 Core has no retention policies)
        this.retentionPolicy = settings.retentionPolicy().isEmpty() ? null : settings.retentionPolicy();
        this.metrics = metrics;
    }

    public void write(List<Point> points) {
        if (points.isEmpty()) {
            return;
        }
        BatchPoints batch = BatchPoints.database(database)
                .retentionPolicy(retentionPolicy)
                .precision(TimeUnit.MILLISECONDS)
                .points(points)
                .build();
        long start = System.nanoTime();
        try {
            influx.write(batch);
        } catch (InfluxDBException e) {
            metrics.writeFailure(e);
            if (refusedForGood(e)) {
                metrics.pointsRejected(points.size());
                log.error("InfluxDB refused points of a batch of {} for good (the rest is written): {}",
                        points.size(), abbreviate(e.getMessage()));
                return;
            }
            throw new RetriableException(describe(e), e);
        } catch (RuntimeException e) {
            metrics.writeFailure(e);
            throw new RetriableException(describe(e), e);
        }
        metrics.writeLatency().record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        metrics.pointsWritten(points.size());
    }

    private static boolean refusedForGood(InfluxDBException e) {
        String message = e.getMessage() == null ? "" : e.getMessage();
        return e instanceof InfluxDBException.FieldTypeConflictException
                || e instanceof InfluxDBException.PointsBeyondRetentionPolicyException
                || e instanceof InfluxDBException.UnableToParseException
                || message.contains("partial write");
    }

    private String describe(RuntimeException e) {
        String hint = "";
        if (e instanceof InfluxDBException.DatabaseNotFoundException || String.valueOf(e.getMessage())
                .contains("retention policy not found")) {
            hint = " (run 'rdmamon influx init' to create database " + database + " and policy " + retentionPolicy
                    + ")";
        } else if (e instanceof InfluxDBException.AuthorizationFailedException) {
            hint = " (check influx.username and the password or token)";
        }
        return e.getClass().getSimpleName() + ": " + abbreviate(e.getMessage()) + hint;
    }

    private static String abbreviate(String text) {
        if (text == null) {
            return "(no message)";
        }
        return Excerpt.of(text, 500);
    }
}
