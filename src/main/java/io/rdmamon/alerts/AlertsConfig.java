package io.rdmamon.alerts;

import io.rdmamon.config.ConfigLoader;
import io.rdmamon.model.Topics;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Settings of {@code rdmamon alerts}. Every key has a default and a doc string; {@code streams/alerts.properties} is
 * the annotated default file. Kafka client settings pass through under {@code kafka.} (see {@link ConfigLoader}).
 */
public final class AlertsConfig extends AbstractConfig {
    public static final String KAFKA_PREFIX = "kafka.";

    public static final String TOPIC_CONFIG = "alerts.topic";
    public static final String DEFAULT_TOPIC = Topics.ALERTS;
    private static final String TOPIC_DOC = "Topic of the alert records to deliver.";

    public static final String DEAD_LETTER_TOPIC_CONFIG = "alerts.dead.letter.topic";
    public static final String DEFAULT_DEAD_LETTER_TOPIC = Topics.DEAD_LETTER;
    private static final String DEAD_LETTER_TOPIC_DOC = "Topic for records a receiver rejected (HTTP 400, 413, 422, ...) "
            + "or that are not valid alerts; the reason, receiver and source offset are in the record headers.";

    public static final String ALERTMANAGER_URL_CONFIG = "alerts.alertmanager.url";
    public static final String DEFAULT_ALERTMANAGER_URL = "";
    private static final String ALERTMANAGER_URL_DOC = "Alertmanager base URL(s), comma-separated, e.g. "
            + "http://alertmanager:9093. Alerts are posted to <url>/api/v2/alerts. For an Alertmanager cluster list "
            + "every instance (Alertmanager does not share alerts between peers; each instance gets its own consumer "
            + "group). Empty: no Alertmanager delivery.";

    public static final String WEBHOOK_URL_CONFIG = "alerts.webhook.url";
    public static final String DEFAULT_WEBHOOK_URL = "";
    private static final String WEBHOOK_URL_DOC = "Generic webhook URL: every alert record is POSTed there as is (one "
            + "JSON object per request). Only scheme and host are ever logged. Empty: no webhook delivery.";

    public static final String WEBHOOK_TOKEN_CONFIG = "alerts.webhook.token";
    private static final String WEBHOOK_TOKEN_DOC = "Bearer token sent to the webhook (Authorization: Bearer ...). "
            + "Give it by environment (RDMAMON_ALERTS_WEBHOOK_TOKEN) rather than in a file; never logged. Takes "
            + "precedence over alerts.webhook.token.file.";

    public static final String WEBHOOK_TOKEN_FILE_CONFIG = "alerts.webhook.token.file";
    public static final String DEFAULT_WEBHOOK_TOKEN_FILE = "";
    private static final String WEBHOOK_TOKEN_FILE_DOC = "File holding the webhook's bearer token (surrounding "
            + "whitespace removed), e.g. a mounted Kubernetes Secret. Read for every request, so a rotated secret is "
            + "picked up without a restart. Empty: no file.";

    public static final String RESEND_INTERVAL_MS_CONFIG = "alerts.resend.interval.ms";
    public static final long DEFAULT_RESEND_INTERVAL_MS = 60_000;
    private static final String RESEND_INTERVAL_MS_DOC = "Firing incidents are re-posted to Alertmanager this often, "
            + "with endsAt = now + 4 x this interval, so Alertmanager keeps them active while rdmamon runs, restores "
            + "them within one interval after an Alertmanager restart, and resolves them by itself within 4 intervals "
            + "if rdmamon is gone. At 60000 a firing alert posted at 12:00 carries endsAt 12:04 and is renewed at "
            + "12:01.";

    public static final String RETRY_BACKOFF_INITIAL_MS_CONFIG = "alerts.retry.backoff.initial.ms";
    public static final long DEFAULT_RETRY_BACKOFF_INITIAL_MS = 500;
    private static final String RETRY_BACKOFF_INITIAL_MS_DOC = "First wait before retrying a receiver that is down or "
            + "answered 5xx, 408 or 429 (or 401, 403, 404, 405: a configuration problem, not the record's). The wait "
            + "doubles on each failure up to alerts.retry.backoff.max.ms (with up to 20% random jitter) and starts "
            + "over after a success: 500, 1000, 2000, ... ms.";

    public static final String RETRY_BACKOFF_MAX_MS_CONFIG = "alerts.retry.backoff.max.ms";
    public static final long DEFAULT_RETRY_BACKOFF_MAX_MS = 30_000;
    private static final String RETRY_BACKOFF_MAX_MS_DOC = "Longest wait between retries of a receiver that is down.";

    public static final String REQUEST_TIMEOUT_MS_CONFIG = "alerts.request.timeout.ms";
    public static final long DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
    private static final String REQUEST_TIMEOUT_MS_DOC = "Time allowed for one HTTP request (connect and response) "
            + "before it counts as failed and is retried.";

    public static final String GENERATOR_URL_CONFIG = "alerts.generator.url";
    public static final String DEFAULT_GENERATOR_URL = "";
    private static final String GENERATOR_URL_DOC = "Link put in each Alertmanager alert's generatorURL, e.g. a "
            + "Grafana dashboard. The placeholders {id}, {type}, {job}, {namespace}, {node}, {device}, {port} are "
            + "replaced by the alert's URL-encoded values (empty when absent), e.g. "
            + "https://grafana.example/d/rdmamon-job?var-job={job}&var-namespace={namespace}. Empty: no link.";

    public static final String GROUP_ID_CONFIG = KAFKA_PREFIX + "group.id";
    public static final String DEFAULT_GROUP_ID = "rdmamon-alerts";
    private static final String GROUP_ID_DOC = "Base consumer group id. Each receiver consumes in its own group, "
            + "<group.id>-<receiver> (rdmamon-alerts-alertmanager, rdmamon-alerts-webhook), so a receiver that is down "
            + "does not hold back the other; offsets are committed only after the receiver accepted the alerts.";

    public static final String METRICS_PORT_CONFIG = "metrics.port";
    public static final int DEFAULT_METRICS_PORT = 9467;
    private static final String METRICS_PORT_DOC = "Port of the Prometheus endpoint /metrics; -1 disables it.";

    public static final String METRICS_BIND_CONFIG = "metrics.bind.address";
    public static final String DEFAULT_METRICS_BIND = "0.0.0.0";
    private static final String METRICS_BIND_DOC = "Address the metrics endpoint binds to.";

    public static final ConfigDef CONFIG = new ConfigDef()
            .define(ALERTMANAGER_URL_CONFIG, Type.LIST, DEFAULT_ALERTMANAGER_URL, AlertsConfig::validateUrls,
                    Importance.HIGH, ALERTMANAGER_URL_DOC)
            .define(WEBHOOK_URL_CONFIG, Type.STRING, DEFAULT_WEBHOOK_URL, AlertsConfig::validateUrls, Importance.HIGH,
                    WEBHOOK_URL_DOC)
            .define(WEBHOOK_TOKEN_CONFIG, Type.PASSWORD, null, Importance.MEDIUM, WEBHOOK_TOKEN_DOC)
            .define(WEBHOOK_TOKEN_FILE_CONFIG, Type.STRING, DEFAULT_WEBHOOK_TOKEN_FILE, Importance.MEDIUM,
                    WEBHOOK_TOKEN_FILE_DOC)
            .define(RESEND_INTERVAL_MS_CONFIG, Type.LONG, DEFAULT_RESEND_INTERVAL_MS,
                    ConfigDef.Range.between(100L, 3_600_000L), Importance.MEDIUM, RESEND_INTERVAL_MS_DOC)
            .define(RETRY_BACKOFF_INITIAL_MS_CONFIG, Type.LONG, DEFAULT_RETRY_BACKOFF_INITIAL_MS,
                    ConfigDef.Range.between(10L, 600_000L), Importance.MEDIUM, RETRY_BACKOFF_INITIAL_MS_DOC)
            .define(RETRY_BACKOFF_MAX_MS_CONFIG, Type.LONG, DEFAULT_RETRY_BACKOFF_MAX_MS,
                    ConfigDef.Range.between(10L, 3_600_000L), Importance.MEDIUM, RETRY_BACKOFF_MAX_MS_DOC)
            .define(REQUEST_TIMEOUT_MS_CONFIG, Type.LONG, DEFAULT_REQUEST_TIMEOUT_MS,
                    ConfigDef.Range.between(100L, 600_000L), Importance.LOW, REQUEST_TIMEOUT_MS_DOC)
            .define(GENERATOR_URL_CONFIG, Type.STRING, DEFAULT_GENERATOR_URL, Importance.MEDIUM, GENERATOR_URL_DOC)
            .define(TOPIC_CONFIG, Type.STRING, DEFAULT_TOPIC, new ConfigDef.NonEmptyString(), Importance.LOW, TOPIC_DOC)
            .define(DEAD_LETTER_TOPIC_CONFIG, Type.STRING, DEFAULT_DEAD_LETTER_TOPIC, new ConfigDef.NonEmptyString(),
                    Importance.LOW, DEAD_LETTER_TOPIC_DOC)
            .define(GROUP_ID_CONFIG, Type.STRING, DEFAULT_GROUP_ID, new ConfigDef.NonEmptyString(), Importance.MEDIUM,
                    GROUP_ID_DOC)
            .define(METRICS_PORT_CONFIG, Type.INT, DEFAULT_METRICS_PORT, ConfigDef.Range.between(-1, 65_535),
                    Importance.MEDIUM, METRICS_PORT_DOC)
            .define(METRICS_BIND_CONFIG, Type.STRING, DEFAULT_METRICS_BIND, Importance.LOW, METRICS_BIND_DOC);

    public AlertsConfig(Map<?, ?> originals) {
        super(CONFIG, originals, false);
        if (retryBackoffMax().compareTo(retryBackoffInitial()) < 0) {
            throw new ConfigException(RETRY_BACKOFF_MAX_MS_CONFIG, retryBackoffMax().toMillis(),
                    "must be at least " + RETRY_BACKOFF_INITIAL_MS_CONFIG + " (" + retryBackoffInitial().toMillis() + ")");
        }
    }

    /** Loads defaults &lt; file &lt; {@code RDMAMON_*} environment &lt; flags. */
    public static AlertsConfig load(Path file, Map<String, String> env, Map<String, ?> flags) {
        return new AlertsConfig(ConfigLoader.load(CONFIG, file, env, flags, KAFKA_PREFIX));
    }

    public List<URI> alertmanagerUrls() {
        return getList(ALERTMANAGER_URL_CONFIG).stream().filter(s -> !s.isBlank()).map(URI::create).toList();
    }

    /** Null when no webhook is configured. */
    public URI webhookUrl() {
        String url = getString(WEBHOOK_URL_CONFIG);
        return url.isBlank() ? null : URI.create(url.trim());
    }

    /** Null when none is set. */
    public Password webhookToken() {
        return getPassword(WEBHOOK_TOKEN_CONFIG);
    }

    /** Null when none is set. */
    public Path webhookTokenFile() {
        String file = getString(WEBHOOK_TOKEN_FILE_CONFIG);
        return file.isBlank() ? null : Path.of(file);
    }

    public Duration resendInterval() {
        return Duration.ofMillis(getLong(RESEND_INTERVAL_MS_CONFIG));
    }

    public Duration retryBackoffInitial() {
        return Duration.ofMillis(getLong(RETRY_BACKOFF_INITIAL_MS_CONFIG));
    }

    public Duration retryBackoffMax() {
        return Duration.ofMillis(getLong(RETRY_BACKOFF_MAX_MS_CONFIG));
    }

    public Duration requestTimeout() {
        return Duration.ofMillis(getLong(REQUEST_TIMEOUT_MS_CONFIG));
    }

    /** Empty when no link is configured. */
    public String generatorUrl() {
        return getString(GENERATOR_URL_CONFIG).trim();
    }

    public String topic() {
        return getString(TOPIC_CONFIG);
    }

    public String deadLetterTopic() {
        return getString(DEAD_LETTER_TOPIC_CONFIG);
    }

    public String groupId() {
        return getString(GROUP_ID_CONFIG);
    }

    /** The Kafka client settings given under {@code kafka.}, prefix removed (without the group id). */
    public Map<String, Object> kafkaSettings() {
        Map<String, Object> settings = ConfigLoader.withPrefix(originals(), KAFKA_PREFIX);
        settings.remove("group.id");
        return settings;
    }

    private static void validateUrls(String name, Object value) {
        List<?> urls = value instanceof List<?> list ? list : List.of(value);
        for (Object url : urls) {
            String text = String.valueOf(url).trim();
            if (text.isEmpty()) {
                continue;
            }
            try {
                URI uri = new URI(text);
                if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
                    throw new ConfigException(name, Redact.url(uri), "not an http(s) URL with a host");
                }
            } catch (URISyntaxException e) {
                // the text may carry a token: name the problem, not the value
                throw new ConfigException(name, "(not shown)", "not a valid URL: " + e.getReason());
            }
        }
    }
}
