package io.rdmamon.alerts;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.rdmamon.model.Alert;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * One element of Alertmanager's {@code POST /api/v2/alerts} body (postableAlert).
 *
 * <p>Alertmanager identifies an alert by its label set. The labels are a pure function of the record, and include
 * {@code incident} = the alert's stable id: a replay of the same record after a restart lands on the same Alertmanager
 * alert (no duplicate), while two incidents of the same type on the same port stay two alerts, so a late resolve of
 * the first can never resolve the second.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record AlertmanagerAlert(
        Map<String, String> labels,
        Map<String, String> annotations,
        String startsAt,
        String endsAt,
        @JsonProperty("generatorURL") String generatorUrl) {

    static final String ALERTNAME = "alertname";
    static final String INCIDENT = "incident";

    /**
     * @param now     wall clock: a firing alert is kept alive until {@code now + horizon} unless re-posted
     * @param horizon how long Alertmanager keeps a firing alert without hearing from us again
     */
    static AlertmanagerAlert of(Alert alert, Instant now, Duration horizon, GeneratorLink link) {
        Map<String, String> labels = new TreeMap<>();
        alert.labels().forEach((name, value) -> putLabel(labels, sanitize(name), value));
        // the record's own fields win over same-named free-form labels
        putLabel(labels, "severity", alert.severity());
        putLabel(labels, "job", alert.job());
        putLabel(labels, "namespace", alert.namespace());
        putLabel(labels, "node", alert.node());
        putLabel(labels, "device", alert.device());
        putLabel(labels, "port", alert.port() == null ? null : alert.port().toString());
        putLabel(labels, ALERTNAME, alert.type());
        putLabel(labels, INCIDENT, alert.id());

        Map<String, String> annotations = new TreeMap<>();
        putLabel(annotations, "summary", alert.summary());
        if (alert.detectedAt() > 0) {
            annotations.put("detectedAt", Instant.ofEpochMilli(alert.detectedAt()).toString());
        }

        Instant startsAt = alert.startsAt() > 0 ? Instant.ofEpochMilli(alert.startsAt()) : null;
        Instant endsAt;
        if (Alert.FIRING.equals(alert.status())) {
            endsAt = now.plus(horizon);
        } else {
            // a resolved record without endsAt breaks the contract; "now" still resolves the incident
            endsAt = alert.endsAt() != null ? Instant.ofEpochMilli(alert.endsAt()) : now;
        }
        if (startsAt != null && endsAt.isBefore(startsAt)) {
            // Alertmanager rejects endsAt < startsAt (clock skew between nodes, or a firing alert from the future)
            endsAt = startsAt;
        }
        return new AlertmanagerAlert(labels, annotations, startsAt == null ? null : startsAt.toString(),
                endsAt.toString(), link.render(alert));
    }

    /** Alertmanager accepts label names matching {@code [a-zA-Z_][a-zA-Z0-9_]*}: {@code app.kubernetes.io/name} → {@code app_kubernetes_io_name}. */
    static String sanitize(String name) {
        StringBuilder sb = new StringBuilder(name.length() + 1);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean valid = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= '0' && c <= '9';
            sb.append(valid ? c : '_');
        }
        if (sb.isEmpty() || Character.isDigit(sb.charAt(0))) {
            sb.insert(0, '_');
        }
        return sb.toString();
    }

    /** Empty values are left out: for Alertmanager an empty label is the same as no label. */
    private static void putLabel(Map<String, String> map, String name, String value) {
        if (value != null && !value.isEmpty()) {
            map.put(name, value);
        }
    }
}
