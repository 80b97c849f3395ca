package io.rdmamon.influx;

import okhttp3.OkHttpClient;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.influxdb.InfluxDB;
import org.influxdb.InfluxDBFactory;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Where and how to reach InfluxDB, and the retention layout: the {@code influx.*} keys shared by {@code rdmamon sink},
 * {@code rdmamon influx init} and anything else that reads or writes rdmamon's series. Everything goes through the v1
 * HTTP API ({@code /write}, {@code /query}), which InfluxDB 1.x, 2.x (DBRP mapping) and 3 Core all serve.
 */
public record InfluxSettings(String url, String database, String retentionPolicy, String retentionDuration,
                             String rollupRetentionPolicy, String rollupRetentionDuration, int rollupResampleMinutes,
                             Duration connectTimeout, Duration requestTimeout, InfluxCredentials credentials) {

    public static final String URL_CONFIG = "influx.url";
    public static final String DEFAULT_URL = "http://127.0.0.1:8086";
    private static final String URL_DOC = "InfluxDB base URL (v1 API: /write and /query). 1.x and 2.x listen on 8086, "
            + "3 Core on 8181.";

    public static final String DATABASE_CONFIG = "influx.database";
    public static final String DEFAULT_DATABASE = "rdmamon";
    private static final String DATABASE_DOC = "Database (on 2.x: the database name of a DBRP mapping; on 3 Core: the "
            + "database).";

    public static final String USERNAME_CONFIG = "influx.username";
    private static final String USERNAME_DOC = "User for 1.x authentication (with a password). Empty: none.";

    public static final String PASSWORD_CONFIG = "influx.password";
    private static final String PASSWORD_DOC = "Password for influx.username. Set it through the environment "
            + "(RDMAMON_INFLUX_PASSWORD) or influx.password.file rather than in a properties file. Never logged.";

    public static final String PASSWORD_FILE_CONFIG = "influx.password.file";
    private static final String PASSWORD_FILE_DOC = "File holding the password (e.g. a mounted secret).";

    public static final String TOKEN_CONFIG = "influx.token";
    private static final String TOKEN_DOC = "API token for InfluxDB 2.x / 3 Core, sent as 'Authorization: Token <t>'. "
            + "Set it through the environment (RDMAMON_INFLUX_TOKEN) or influx.token.file. Never logged.";

    public static final String TOKEN_FILE_CONFIG = "influx.token.file";
    private static final String TOKEN_FILE_DOC = "File holding the API token.";

    public static final String CONNECT_TIMEOUT_MS_CONFIG = "influx.connect.timeout.ms";
    public static final int DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
    private static final String CONNECT_TIMEOUT_MS_DOC = "TCP connect timeout.";

    public static final String REQUEST_TIMEOUT_MS_CONFIG = "influx.request.timeout.ms";
    public static final int DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
    private static final String REQUEST_TIMEOUT_MS_DOC = "Read/write timeout of one HTTP request; a write that times "
            + "out is retried (points are idempotent).";

    public static final String RETENTION_POLICY_CONFIG = "influx.retention.policy";
    public static final String DEFAULT_RETENTION_POLICY = "rp_raw";
    private static final String RETENTION_POLICY_DOC = "Retention policy raw points are written to; influx init makes "
            + "it the database's default, so queries without an RP read raw data. Empty: none is sent and the server's "
            + "default applies (InfluxDB 3 Core, which has no retention policies).";

    public static final String RETENTION_DURATION_CONFIG = "influx.retention.duration";
    public static final String DEFAULT_RETENTION_DURATION = "7d";
    private static final String RETENTION_DURATION_DOC = "How long raw points are kept (InfluxQL duration: 36h, 7d, "
            + "2w).";

    public static final String ROLLUP_RETENTION_POLICY_CONFIG = "influx.rollup.retention.policy";
    public static final String DEFAULT_ROLLUP_RETENTION_POLICY = "rp_1y";
    private static final String ROLLUP_RETENTION_POLICY_DOC = "Retention policy of the 1-minute rollups written by "
            + "the continuous queries (same measurement names as the raw points).";

    public static final String ROLLUP_RETENTION_DURATION_CONFIG = "influx.rollup.retention.duration";
    public static final String DEFAULT_ROLLUP_RETENTION_DURATION = "365d";
    private static final String ROLLUP_RETENTION_DURATION_DOC = "How long 1-minute rollups are kept.";

    public static final String ROLLUP_RESAMPLE_MINUTES_CONFIG = "influx.rollup.resample.minutes";
    public static final int DEFAULT_ROLLUP_RESAMPLE_MINUTES = 5;
    private static final String ROLLUP_RESAMPLE_MINUTES_DOC = "Each continuous-query run recomputes the last N "
            + "minutes (RESAMPLE FOR), so points that arrive up to N minutes late (sink catching up) are rolled up. "
            + "After a longer outage run 'rdmamon influx init --backfill <duration>'.";

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.\\-]*");
    private static final Pattern OPTIONAL_IDENTIFIER = Pattern.compile("|" + IDENTIFIER.pattern());
    private static final Pattern INFLUX_DURATION = Pattern.compile("INF|\\d+[smhdw]");

    /** Adds the {@code influx.*} keys to {@code def}. */
    public static ConfigDef define(ConfigDef def) {
        return def
                .define(URL_CONFIG, Type.STRING, DEFAULT_URL, new ConfigDef.NonEmptyString(), Importance.HIGH,
                        URL_DOC)
                .define(DATABASE_CONFIG, Type.STRING, DEFAULT_DATABASE, matching(IDENTIFIER, "a name"),
                        Importance.HIGH, DATABASE_DOC)
                .define(USERNAME_CONFIG, Type.STRING, null, Importance.MEDIUM, USERNAME_DOC)
                .define(PASSWORD_CONFIG, Type.PASSWORD, null, Importance.MEDIUM, PASSWORD_DOC)
                .define(PASSWORD_FILE_CONFIG, Type.STRING, null, Importance.MEDIUM, PASSWORD_FILE_DOC)
                .define(TOKEN_CONFIG, Type.PASSWORD, null, Importance.MEDIUM, TOKEN_DOC)
                .define(TOKEN_FILE_CONFIG, Type.STRING, null, Importance.MEDIUM, TOKEN_FILE_DOC)
                .define(CONNECT_TIMEOUT_MS_CONFIG, Type.INT, DEFAULT_CONNECT_TIMEOUT_MS, ConfigDef.Range.atLeast(1),
                        Importance.LOW, CONNECT_TIMEOUT_MS_DOC)
                .define(REQUEST_TIMEOUT_MS_CONFIG, Type.INT, DEFAULT_REQUEST_TIMEOUT_MS, ConfigDef.Range.atLeast(1),
                        Importance.LOW, REQUEST_TIMEOUT_MS_DOC)
                .define(RETENTION_POLICY_CONFIG, Type.STRING, DEFAULT_RETENTION_POLICY,
                        matching(OPTIONAL_IDENTIFIER, "a name or empty"), Importance.MEDIUM, RETENTION_POLICY_DOC)
                .define(RETENTION_DURATION_CONFIG, Type.STRING, DEFAULT_RETENTION_DURATION,
                        matching(INFLUX_DURATION, "an InfluxQL duration"), Importance.MEDIUM, RETENTION_DURATION_DOC)
                .define(ROLLUP_RETENTION_POLICY_CONFIG, Type.STRING, DEFAULT_ROLLUP_RETENTION_POLICY,
                        matching(IDENTIFIER, "a name"), Importance.MEDIUM, ROLLUP_RETENTION_POLICY_DOC)
                .define(ROLLUP_RETENTION_DURATION_CONFIG, Type.STRING, DEFAULT_ROLLUP_RETENTION_DURATION,
                        matching(INFLUX_DURATION, "an InfluxQL duration"), Importance.MEDIUM,
                        ROLLUP_RETENTION_DURATION_DOC)
                .define(ROLLUP_RESAMPLE_MINUTES_CONFIG, Type.INT, DEFAULT_ROLLUP_RESAMPLE_MINUTES,
                        ConfigDef.Range.between(1, 1440), Importance.LOW, ROLLUP_RESAMPLE_MINUTES_DOC);
    }

    /** Reads the {@code influx.*} keys of a config built with {@link #define}. */
    public static InfluxSettings from(AbstractConfig config) {
        InfluxSettings settings = new InfluxSettings(
                config.getString(URL_CONFIG).replaceAll("/+$", ""),
                config.getString(DATABASE_CONFIG),
                config.getString(RETENTION_POLICY_CONFIG),
                config.getString(RETENTION_DURATION_CONFIG),
                config.getString(ROLLUP_RETENTION_POLICY_CONFIG),
                config.getString(ROLLUP_RETENTION_DURATION_CONFIG),
                config.getInt(ROLLUP_RESAMPLE_MINUTES_CONFIG),
                Duration.ofMillis(config.getInt(CONNECT_TIMEOUT_MS_CONFIG)),
                Duration.ofMillis(config.getInt(REQUEST_TIMEOUT_MS_CONFIG)),
                InfluxCredentials.resolve(config.getString(USERNAME_CONFIG), config.getPassword(PASSWORD_CONFIG),
                        config.getString(PASSWORD_FILE_CONFIG), config.getPassword(TOKEN_CONFIG),
                        config.getString(TOKEN_FILE_CONFIG)));
        if (settings.retentionPolicy.equals(settings.rollupRetentionPolicy)) {
            throw new ConfigException(ROLLUP_RETENTION_POLICY_CONFIG + " must differ from " + RETENTION_POLICY_CONFIG
                    + " (both are " + settings.retentionPolicy + ")");
        }
        return settings;
    }

    /** An OkHttp builder with this server's timeouts and authentication, for influxdb-java or other clients. */
    public OkHttpClient.Builder httpClient() {
        return credentials.applyTo(new OkHttpClient.Builder()
                .connectTimeout(connectTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .readTimeout(requestTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .writeTimeout(requestTimeout.toMillis(), TimeUnit.MILLISECONDS));
    }

    /** A synchronous influxdb-java client (no background batching: a failed write throws). */
    public InfluxDB connect() {
        return InfluxDBFactory.connect(url, httpClient());
    }

    private static ConfigDef.Validator matching(Pattern pattern, String what) {
        return ConfigDef.LambdaValidator.with((name, value) -> {
            if (value != null && !pattern.matcher(value.toString()).matches()) {
                throw new ConfigException(name, value, "must be " + what + " matching " + pattern.pattern());
            }
        }, () -> what);
    }
}
