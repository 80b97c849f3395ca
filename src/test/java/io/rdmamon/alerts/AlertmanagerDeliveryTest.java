package io.rdmamon.alerts;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.model.Alert;
import io.rdmamon.testing.LocalAlertmanager;
import io.rdmamon.testing.SharedKafka;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static io.rdmamon.alerts.AlertFixtures.firing;
import static io.rdmamon.alerts.AlertFixtures.produce;
import static io.rdmamon.alerts.AlertFixtures.resolved;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Delivery from the real broker to a real Alertmanager, read back through its v2 API and its own metrics. */
class AlertmanagerDeliveryTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static LocalAlertmanager shared;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @BeforeAll
    static void startAlertmanager() {
        shared = LocalAlertmanager.started();
    }

    @AfterAll
    static void stopAlertmanager() {
        shared.close();
    }

    @Test
    void shouldHoldFiringAlertWithLabelsAnnotationsAndLinkWhenFiringRecordIsProduced() {
        String topic = topics();
        Alert alert = firing("inc-" + topic, "job-" + topic);
        try (AlertDelivery ignored = start(topic, shared, Map.of(AlertsConfig.GENERATOR_URL_CONFIG,
                "https://grafana.example/d/rdmamon-job?var-job={job}&var-node={node}"))) {
            produce(topic, alert);
            await().atMost(WAIT).untilAsserted(() -> assertThat(held(shared, alert.job())).hasSize(1));
        }
        JsonNode held = held(shared, alert.job()).get(0);
        assertThat(labels(held)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "alertname", "LINK_DEGRADED", "incident", alert.id(), "severity", "warning", "job", alert.job(),
                "namespace", "team-a", "node", "gpu-node-07", "device", "erdma_0", "port", "1", "rail", "3",
                "app_kubernetes_io_name", "trainer"));
        assertThat(held.path("annotations").path("summary").asText()).isEqualTo(alert.summary());
        assertThat(held.path("annotations").path("detectedAt").asText()).isEqualTo("2026-01-01T00:00:04Z");
        assertThat(Instant.parse(held.path("startsAt").asText())).isEqualTo(Instant.ofEpochMilli(alert.startsAt()));
        assertThat(held.path("status").path("state").asText()).isEqualTo("active");
        assertThat(held.path("generatorURL").asText())
                .isEqualTo("https://grafana.example/d/rdmamon-job?var-job=" + alert.job() + "&var-node=gpu-node-07");
        // kept alive for 4 resend intervals (default 60 s) unless renewed
        assertThat(Instant.parse(held.path("endsAt").asText()))
                .isBetween(Instant.now().plusSeconds(150), Instant.now().plusSeconds(250));
        assertThat(registry.counter("rdmamon.alerts.delivered", "receiver", "alertmanager").count()).isEqualTo(1);
    }

    @Test
    void shouldResolveAlertWhenResolvedRecordFollows() {
        String topic = topics();
        Alert alert = firing("inc-" + topic, "job-" + topic);
        long resolvedBefore = shared.receivedTotal("resolved");
        try (AlertDelivery ignored = start(topic, shared, Map.of())) {
            produce(topic, alert);
            await().atMost(WAIT).untilAsserted(() -> assertThat(held(shared, alert.job())).hasSize(1));
            produce(topic, resolved(alert));
            // gone long before its 4-minute horizon: resolved, not expired
            await().atMost(WAIT).untilAsserted(() -> assertThat(held(shared, alert.job())).isEmpty());
        }
        assertThat(shared.receivedTotal("resolved")).isGreaterThan(resolvedBefore);
    }

    @Test
    void shouldDeliverEveryAlertOnceWhenAlertmanagerStartsAfterTheAlertsWereProduced() {
        String topic = topics();
        String job = "job-" + topic;
        List<Alert> alerts = IntStream.range(0, 10).mapToObj(i -> firing("inc-" + i + "-" + topic, job)).toList();
        try (LocalAlertmanager am = LocalAlertmanager.create();
             AlertDelivery ignored = start(topic, am, Map.of())) {
            produce(topic, alerts.toArray());
            produce(topic, resolved(alerts.get(0)), resolved(alerts.get(1)), resolved(alerts.get(2)));
            await().atMost(WAIT).until(() -> registry.counter("rdmamon.alerts.retries", "receiver",
                    "alertmanager").count() >= 2);
            assertThat(registry.counter("rdmamon.alerts.delivered", "receiver", "alertmanager").count()).isZero();

            am.start();

            await().atMost(WAIT).untilAsserted(() -> assertThat(incidents(held(am, job)))
                    .containsExactlyInAnyOrderElementsOf(alerts.subList(3, 10).stream().map(Alert::id).toList()));
            await().atMost(WAIT).untilAsserted(() -> assertThat(am.receivedTotal("resolved")).isEqualTo(3));
            assertThat(am.receivedTotal("firing")).isEqualTo(10);
            assertThat(registry.counter("rdmamon.alerts.delivered", "receiver", "alertmanager").count()).isEqualTo(13);
        }
    }

    @Test
    void shouldKeepOneAlertPerIncidentAndRestoreFiringOnesWhenDeliveryAndAlertmanagerRestart() {
        String topic = topics();
        String job = "job-" + topic;
        Alert a = firing("inc-a-" + topic, job);
        Alert b = firing("inc-b-" + topic, job);
        Alert c = firing("inc-c-" + topic, job);
        Map<String, Object> fastResend = Map.of(AlertsConfig.RESEND_INTERVAL_MS_CONFIG, 500);
        try (LocalAlertmanager am = LocalAlertmanager.started()) {
            try (AlertDelivery ignored = start(topic, am, fastResend)) {
                produce(topic, a, b);
                await().atMost(WAIT).untilAsserted(() -> assertThat(incidents(held(am, job)))
                        .containsExactlyInAnyOrder(a.id(), b.id()));
            }
            produce(topic, resolved(a), c); // while delivery is down

            try (AlertDelivery ignored = start(topic, am, fastResend)) {
                await().atMost(WAIT).untilAsserted(() -> assertThat(incidents(held(am, job)))
                        .containsExactlyInAnyOrder(b.id(), c.id()));
                // Alertmanager forgets every alert on restart; b is known to the new delivery only from the topic
                am.stop();
                am.start();
                assertThat(held(am, job)).isEmpty();
                await().atMost(WAIT).untilAsserted(() -> assertThat(incidents(held(am, job)))
                        .containsExactlyInAnyOrder(b.id(), c.id()));
            }
        }
    }

    private AlertDelivery start(String topic, LocalAlertmanager am, Map<String, Object> overrides) {
        Map<String, Object> settings = new HashMap<>(overrides);
        settings.put(AlertsConfig.ALERTMANAGER_URL_CONFIG, am.url().toString());
        return AlertDelivery.start(new AlertsConfig(AlertFixtures.settings(topic, "dlq-" + topic, settings)),
                registry);
    }

    private static String topics() {
        String topic = SharedKafka.uniqueTopic("alerts");
        SharedKafka.createTopics(SharedKafka.bootstrapServers(), 2, topic, "dlq-" + topic);
        return topic;
    }

    private static List<JsonNode> held(LocalAlertmanager am, String job) {
        return am.alerts("job=\"" + job + "\"");
    }

    private static List<String> incidents(List<JsonNode> alerts) {
        return alerts.stream().map(a -> a.path("labels").path("incident").asText()).toList();
    }

    private static Map<String, String> labels(JsonNode alert) {
        Map<String, String> labels = new HashMap<>();
        alert.path("labels").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
        return labels;
    }
}
