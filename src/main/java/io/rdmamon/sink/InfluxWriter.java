package io.rdmamon.sink;

import io.rdmamon.support.Excerpt;
import io.rdmamon.influx.InfluxSettings;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.influxdb.InfluxDBException;
import org.influxdb.InfluxDBIOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Writes rendered line protocol synchronously through the v1 API ({@code POST /write?db=&rp=&precision=ms}) with the
 * OkHttp client influxdb-java would use (same timeouts, same authentication): when {@link #write} returns, InfluxDB
 * has accepted the points. Safe to call from several threads. Failures are sorted in two, with influxdb-java's
 * reading of the server's error:
 * <ul>
 *   <li>the server refused some points for good (HTTP 400: field type conflict, beyond the retention policy,
 *   unparseable): it wrote the others, a retry cannot help, so the refusal is logged and counted and the write
 *   counts as done;</li>
 *   <li>anything else (connection refused, timeout, 5xx, missing database, authentication) may heal:
 *   {@link RetriableException}.</li>
 * </ul>
 */
public final class InfluxWriter implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(InfluxWriter.class);
    private static final MediaType LINE_PROTOCOL = MediaType.get("text/plain; charset=utf-8");

    private final OkHttpClient http;
    private final HttpUrl url;
    private final String database;
    private final String retentionPolicy;
    private final SinkMetrics metrics;

    public InfluxWriter(InfluxSettings settings, SinkMetrics metrics) {
        this.http = settings.httpClient().build();
        this.database = settings.database();
        // empty: let the server pick (3 Core has no retention policies)
        this.retentionPolicy = settings.retentionPolicy().isEmpty() ? null : settings.retentionPolicy();
        HttpUrl.Builder write = HttpUrl.get(settings.url()).newBuilder().addPathSegment("write")
                .addQueryParameter("db", database);
        if (retentionPolicy != null) {
            write.addQueryParameter("rp", retentionPolicy);
        }
        this.url = write.addQueryParameter("precision", "ms").build();
        this.metrics = metrics;
    }

    public void write(WriteBody body) {
        if (body.points() == 0) {
            return;
        }
        long start = System.nanoTime();
        try {
            post(body);
        } catch (InfluxDBException e) {
            metrics.writeFailure(e);
            if (refusedForGood(e)) {
                metrics.pointsRejected(body.points());
                log.error("InfluxDB refused points of a batch of {} for good (the rest is written): {}",
                        body.points(), abbreviate(e.getMessage()));
                return;
            }
            throw new RetriableException(describe(e), e);
        } catch (RuntimeException e) {
            metrics.writeFailure(e);
            throw new RetriableException(describe(e), e);
        }
        metrics.writeLatency().record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        metrics.pointsWritten(body.points());
    }

    /** As influxdb-java's {@code InfluxDB.write}: any answer but 2xx becomes the exception its error body names. */
    private void post(WriteBody body) {
        Request request = new Request.Builder().url(url).post(RequestBody.create(body.lines(), LINE_PROTOCOL)).build();
        try (Response response = http.newCall(request).execute()) {
            if (!response.isSuccessful()) {
                ResponseBody error = response.body();
                throw InfluxDBException.buildExceptionForErrorState(error == null ? "" : error.string());
            }
        } catch (IOException e) {
            throw new InfluxDBIOException(e);
        }
    }

    @Override
    public void close() {
        http.dispatcher().executorService().shutdown();
        http.connectionPool().evictAll();
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
