package io.rdmamon.capacity;

import io.rdmamon.config.ConfigLoader;
import io.rdmamon.config.Durations;
import io.rdmamon.influx.InfluxSettings;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** Settings of {@code rdmamon capacity}: the shared {@code influx.*} keys plus the report's {@code capacity.*} keys. */
public final class CapacityConfig extends AbstractConfig {
    public static final String SINCE_CONFIG = "capacity.since";
    public static final String DEFAULT_SINCE = "7d";
    private static final String SINCE_DOC = "How far back the report looks (e.g. 7d, 30d, 36h). The raw retention "
            + "policy keeps days only: longer windows need the rollups (capacity.source=rollup).";

    public static final String SOURCE_CONFIG = "capacity.source";
    public static final String SOURCE_ROLLUP = "rollup";
    public static final String SOURCE_RAW = "raw";
    public static final String DEFAULT_SOURCE = SOURCE_ROLLUP;
    private static final String SOURCE_DOC = "Read the 1-minute rollups (influx.rollup.retention.policy) or the raw "
            + "points (influx.retention.policy). Both give statistics over 1-minute means; raw also covers the last "
            + "minutes the continuous queries have not rolled up yet.";

    public static final String IDLE_BELOW_CONFIG = "capacity.idle.below";
    public static final double DEFAULT_IDLE_BELOW = 0.01;
    private static final String IDLE_BELOW_DOC = "A link held by a Running job is reported as allocated but idle "
            + "when none of its 1-minute mean utilisations reached this fraction of the nominal rate.";

    public static final String TOP_JOBS_CONFIG = "capacity.top.jobs";
    public static final int DEFAULT_TOP_JOBS = 10;
    private static final String TOP_JOBS_DOC = "How many of the busiest jobs the report lists.";

    public static final String TOP_HOURS_CONFIG = "capacity.top.hours";
    public static final int DEFAULT_TOP_HOURS = 5;
    private static final String TOP_HOURS_DOC = "How many of the busiest hours of the day (UTC) the report lists.";

    public static final ConfigDef CONFIG = InfluxSettings.define(new ConfigDef())
            .define(SINCE_CONFIG, Type.STRING, DEFAULT_SINCE, ConfigDef.LambdaValidator.with((name, value) -> {
                try {
                    if (Durations.parse(String.valueOf(value)).toSeconds() < 60) {
                        throw new ConfigException(name, value, "must be at least 1m");
                    }
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(name, value, e.getMessage());
                }
            }, () -> "a duration of at least 1m, e.g. 7d"), Importance.HIGH, SINCE_DOC)
            .define(SOURCE_CONFIG, Type.STRING, DEFAULT_SOURCE, ConfigDef.ValidString.in(SOURCE_ROLLUP, SOURCE_RAW),
                    Importance.MEDIUM, SOURCE_DOC)
            .define(IDLE_BELOW_CONFIG, Type.DOUBLE, DEFAULT_IDLE_BELOW, ConfigDef.Range.between(0.0, 1.0),
                    Importance.MEDIUM, IDLE_BELOW_DOC)
            .define(TOP_JOBS_CONFIG, Type.INT, DEFAULT_TOP_JOBS, ConfigDef.Range.atLeast(1), Importance.LOW,
                    TOP_JOBS_DOC)
            .define(TOP_HOURS_CONFIG, Type.INT, DEFAULT_TOP_HOURS, ConfigDef.Range.between(1, 24), Importance.LOW,
                    TOP_HOURS_DOC);

    private final InfluxSettings influx;

    public CapacityConfig(Map<String, ?> originals) {
        super(CONFIG, originals, false);
        this.influx = InfluxSettings.from(this);
    }

    /** Defaults < {@code file} < {@code RDMAMON_*} environment < {@code flags}. */
    public static CapacityConfig load(Path file, Map<String, String> env, Map<String, ?> flags) {
        return new CapacityConfig(ConfigLoader.load(CONFIG, file, env, flags));
    }

    public InfluxSettings influx() {
        return influx;
    }

    public Duration since() {
        return Durations.parse(getString(SINCE_CONFIG));
    }

    /** The retention policy the report reads. */
    public String retentionPolicy() {
        return SOURCE_RAW.equals(getString(SOURCE_CONFIG)) ? influx.retentionPolicy() : influx.rollupRetentionPolicy();
    }

    public CapacityQueries queries() {
        return new CapacityQueries(retentionPolicy(), since());
    }

    public double idleBelow() {
        return getDouble(IDLE_BELOW_CONFIG);
    }

    public int topJobs() {
        return getInt(TOP_JOBS_CONFIG);
    }

    public int topHours() {
        return getInt(TOP_HOURS_CONFIG);
    }
}
