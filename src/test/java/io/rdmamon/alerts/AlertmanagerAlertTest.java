package io.rdmamon.alerts;

import io.rdmamon.model.Alert;
import io.rdmamon.model.Json;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static io.rdmamon.alerts.AlertFixtures.T0;
import static io.rdmamon.alerts.AlertFixtures.firing;
import static io.rdmamon.alerts.AlertFixtures.resolved;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AlertmanagerAlertTest {
    private static final Instant NOW = Instant.parse("2026-01-01T00:10:00Z");
    private static final Duration HORIZON = Duration.ofMinutes(4);
    private static final GeneratorLink NO_LINK = new GeneratorLink("");

    @Test
    void shouldKeepFiringAlertAliveForTheHorizonWhenFiring() {
        AlertmanagerAlert am = AlertmanagerAlert.of(firing("i1", "llama"), NOW, HORIZON, NO_LINK);

        assertThat(am.startsAt()).isEqualTo("2026-01-01T00:00:00Z");
        assertThat(am.endsAt()).isEqualTo("2026-01-01T00:14:00Z");
        assertThat(am.annotations()).containsExactlyInAnyOrderEntriesOf(Map.of(
                "summary", "erdma_0/1 on gpu-node-07: retransmits 40x peers", "detectedAt", "2026-01-01T00:00:04Z"));
        assertThat(am.generatorUrl()).isNull();
    }

    @Test
    void shouldCarryTheIncidentsEndWhenResolved() {
        AlertmanagerAlert am = AlertmanagerAlert.of(resolved(firing("i1", "llama")), NOW, HORIZON, NO_LINK);

        assertThat(am.endsAt()).isEqualTo("2026-01-01T00:01:00Z");
    }

    @Test
    void shouldGiveTheSameLabelsToFiringAndResolvedOfOneIncidentAndDifferentLabelsToAnother() {
        Alert first = firing("incident-1", "llama");
        Alert second = firing("incident-2", "llama");

        assertThat(AlertmanagerAlert.of(first, NOW, HORIZON, NO_LINK).labels())
                .isEqualTo(AlertmanagerAlert.of(resolved(first), NOW.plusSeconds(60), HORIZON, NO_LINK).labels())
                .isNotEqualTo(AlertmanagerAlert.of(second, NOW, HORIZON, NO_LINK).labels());
    }

    @Test
    void shouldLetTheRecordsFieldsWinOverFreeFormLabelsAndLeaveOutWhatIsAbsent() {
        Alert alert = new Alert(1, "i9", Alert.COLLECTOR_SILENT, Alert.FIRING, "critical", null, null, "gpu-node-3",
                null, null, T0, T0, null, null, Map.of("node", "spoofed", "alertname", "spoofed", "zone", "cn-b",
                "empty", ""));

        assertThat(AlertmanagerAlert.of(alert, NOW, HORIZON, NO_LINK).labels()).containsExactlyInAnyOrderEntriesOf(
                Map.of("alertname", "COLLECTOR_SILENT", "incident", "i9", "severity", "critical", "node", "gpu-node-3",
                        "zone", "cn-b"));
    }

    @Test
    void shouldNeverEndBeforeItStartsWhenClocksDisagree() {
        Alert fromTheFuture = new Alert(1, "i2", Alert.LINK_DOWN, Alert.FIRING, "critical", null, null, "n", "mlx5_0",
                1, NOW.plus(Duration.ofHours(1)).toEpochMilli(), 0, null, null, null);

        AlertmanagerAlert am = AlertmanagerAlert.of(fromTheFuture, NOW, HORIZON, NO_LINK);

        assertThat(Instant.parse(am.endsAt())).isEqualTo(Instant.parse(am.startsAt()));
        assertThat(am.annotations()).doesNotContainKey("detectedAt");
    }

    @Test
    void shouldWriteTheFieldNamesOfAlertmanagersApi() {
        String json = Json.toString(AlertmanagerAlert.of(firing("i1", "llama"), NOW, HORIZON,
                new GeneratorLink("https://g.example/d/x?var-job={job}")));

        assertThat(json).contains("\"labels\":{", "\"annotations\":{", "\"startsAt\":\"2026-01-01T00:00:00Z\"",
                "\"endsAt\":\"2026-01-01T00:14:00Z\"", "\"generatorURL\":\"https://g.example/d/x?var-job=llama\"");
    }

    @ParameterizedTest
    @CsvSource({
            "rail, rail",
            "app.kubernetes.io/name, app_kubernetes_io_name",
            "training.kubeflow.org/replica-type, training_kubeflow_org_replica_type",
            "0day, _0day",
            "'', _",
            "GPU_Model, GPU_Model"})
    void shouldTurnAnyLabelKeyIntoAValidAlertmanagerLabelName(String key, String expected) {
        assertThat(AlertmanagerAlert.sanitize(key)).isEqualTo(expected).matches("[a-zA-Z_][a-zA-Z0-9_]*");
    }

    @Test
    void shouldEncodeValuesInTheLinkAndRejectUnknownPlaceholders() {
        Alert alert = new Alert(1, "i/1", Alert.STRAGGLER, Alert.FIRING, "warning", "job a&b", "ns", null, null, null,
                T0, T0, null, null, null);

        assertThat(new GeneratorLink("https://g.example/d/x?job={job}&node={node}&id={id}").render(alert))
                .isEqualTo("https://g.example/d/x?job=job+a%26b&node=&id=i%2F1");
        assertThatThrownBy(() -> new GeneratorLink("https://g.example/d/x?job={jobname}"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("{jobname}");
        assertThatThrownBy(() -> new GeneratorLink("grafana dashboard")).isInstanceOf(ConfigException.class);
    }
}
