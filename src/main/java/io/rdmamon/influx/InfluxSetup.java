package io.rdmamon.influx;

import org.influxdb.InfluxDB;
import org.influxdb.InfluxDBException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.rdmamon.influx.InfluxQl.quote;

/**
 * {@code rdmamon influx init} on InfluxDB 1.x: the database, the raw retention policy (made the default), the rollup
 * retention policy and one continuous query per measurement ({@link Rollups}). Idempotent and convergent: run it
 * again after changing a duration and the policies are altered; a changed continuous query is dropped and recreated.
 * Needs an admin user when authentication is on.
 */
public final class InfluxSetup {
    private static final Logger log = LoggerFactory.getLogger(InfluxSetup.class);

    private final InfluxDB influx;
    private final InfluxSettings settings;

    public InfluxSetup(InfluxDB influx, InfluxSettings settings) {
        if (settings.retentionPolicy().isEmpty()) {
            throw new IllegalArgumentException("influx init needs a named raw retention policy ("
                    + InfluxSettings.RETENTION_POLICY_CONFIG + "); an empty one is for InfluxDB 3 Core, see the docs");
        }
        this.influx = influx;
        this.settings = settings;
    }

    /** The statements {@link #apply()} runs when nothing exists yet (for review, or to run by hand). */
    public List<String> statements() {
        List<String> out = new ArrayList<>();
        out.add("CREATE DATABASE " + quote(settings.database()));
        out.add(retentionPolicy("CREATE", settings.retentionPolicy(), settings.retentionDuration(), true));
        out.add(retentionPolicy("CREATE", settings.rollupRetentionPolicy(), settings.rollupRetentionDuration(),
                false));
        Schema.ALL.forEach(m -> out.add(Rollups.createContinuousQuery(m, settings)));
        return out;
    }

    public void apply() {
        run("CREATE DATABASE " + quote(settings.database()));
        ensureRetentionPolicy(settings.retentionPolicy(), settings.retentionDuration(), true);
        ensureRetentionPolicy(settings.rollupRetentionPolicy(), settings.rollupRetentionDuration(), false);
        for (MeasurementSpec m : Schema.ALL) {
            ensureContinuousQuery(m);
        }
        log.info("InfluxDB {} database {} ready: {} ({}, default), {} ({}), {} continuous queries", settings.url(),
                settings.database(), settings.retentionPolicy(), settings.retentionDuration(),
                settings.rollupRetentionPolicy(), settings.rollupRetentionDuration(), Schema.ALL.size());
    }

    /** Recomputes the rollups of the last {@code span} (after an outage longer than the resample window). */
    public void backfill(Duration span) {
        for (MeasurementSpec m : Schema.ALL) {
            run(Rollups.backfill(m, settings, span));
        }
        log.info("rolled up the last {} into {}", span, settings.rollupRetentionPolicy());
    }

    private void ensureRetentionPolicy(String name, String duration, boolean makeDefault) {
        try {
            run(retentionPolicy("CREATE", name, duration, makeDefault));
        } catch (InfluxDBException e) {
            if (!e.getMessage().contains("already exists")) {
                throw e;
            }
            run(retentionPolicy("ALTER", name, duration, makeDefault));
        }
    }

    private void ensureContinuousQuery(MeasurementSpec m) {
        String create = Rollups.createContinuousQuery(m, settings);
        try {
            run(create);
        } catch (InfluxDBException e) {
            // an identical query is accepted silently; "already exists" means ours changed since the last init
            if (!e.getMessage().contains("already exists")) {
                throw e;
            }
            run("DROP CONTINUOUS QUERY " + quote(Rollups.continuousQueryName(m)) + " ON " + quote(settings.database()));
            run(create);
        }
    }

    private String retentionPolicy(String verb, String name, String duration, boolean makeDefault) {
        return verb + " RETENTION POLICY " + quote(name) + " ON " + quote(settings.database()) + " DURATION " + duration
                + " REPLICATION 1 SHARD DURATION " + shardDuration(duration) + (makeDefault ? " DEFAULT" : "");
    }

    /** InfluxDB's own rule for shard group durations, made explicit so ALTER keeps it valid: <2d 1h, ≤6mo 1d, 7d. */
    static String shardDuration(String duration) {
        if (duration.equals("INF")) {
            return "7d";
        }
        long amount = Long.parseLong(duration.substring(0, duration.length() - 1));
        long seconds = amount * switch (duration.charAt(duration.length() - 1)) {
            case 's' -> 1L;
            case 'm' -> 60L;
            case 'h' -> 3_600L;
            case 'd' -> 86_400L;
            case 'w' -> 604_800L;
            default -> throw new IllegalArgumentException("not an InfluxQL duration: " + duration);
        };
        if (seconds < 2 * 86_400L) {
            return "1h";
        }
        return seconds <= 182 * 86_400L ? "1d" : "7d";
    }

    private void run(String statement) {
        log.debug("influxql: {}", statement);
        InfluxQl.execute(influx, settings.database(), statement);
    }
}
