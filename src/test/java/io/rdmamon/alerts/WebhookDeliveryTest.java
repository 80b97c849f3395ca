package io.rdmamon.alerts;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.model.Alert;
import io.rdmamon.model.DeadLetter;
import io.rdmamon.model.Json;
import io.rdmamon.testing.SharedKafka;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

import static io.rdmamon.alerts.AlertFixtures.firing;
import static io.rdmamon.alerts.AlertFixtures.header;
import static io.rdmamon.alerts.AlertFixtures.produce;
import static io.rdmamon.alerts.AlertFixtures.resolved;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Delivery from the real broker to a webhook served by the JDK's HTTP server in the test. */
class WebhookDeliveryTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void shouldPostEachRecordAsIsWithIdempotencyKeyAndBearerTokenWhenAlertsAreProduced(@TempDir Path dir)
            throws Exception {
        String topic = topics();
        Alert alert = firing("inc-" + topic, "job-" + topic);
        // a newer producer's extra field must reach the webhook untouched
        String withExtraField = Json.toString(firing("inc-x-" + topic, "job-" + topic)).replaceFirst("^\\{",
                "{\"runbook\":\"https://wiki.example/rdma\",");
        Path tokenFile = Files.writeString(dir.resolve("token"), "s3cret-token\n");
        try (RecordingWebhook webhook = new RecordingWebhook((attempt, request) -> RecordingWebhook.Response.OK);
             AlertDelivery ignored = start(topic, webhook, Map.of(AlertsConfig.WEBHOOK_TOKEN_FILE_CONFIG,
                     tokenFile.toString()))) {
            produce(topic, alert, resolved(alert), withExtraField);
            await().atMost(WAIT).untilAsserted(() -> assertThat(webhook.accepted()).hasSize(3));

            assertThat(webhook.acceptedBodies()).containsExactly(Json.toString(alert),
                    Json.toString(resolved(alert)), withExtraField);
            assertThat(webhook.accepted()).allSatisfy(r ->
                    assertThat(r.authorization()).isEqualTo("Bearer s3cret-token"));
            assertThat(webhook.accepted().get(0).idempotencyKey()).isEqualTo(alert.id() + ":firing");
            assertThat(webhook.accepted().get(1).idempotencyKey()).isEqualTo(alert.id() + ":resolved");
            assertThat(webhook.accepted().get(1).incident()).isEqualTo(alert.id());
        }
    }

    @Test
    void shouldCommitPastTheTransactionMarkerWhenTheAlertsAreWrittenInATransaction() {
        String topic = topics();
        Alert first = firing("inc-1-" + topic, "j");
        Alert second = firing("inc-2-" + topic, "j");
        try (RecordingWebhook webhook = new RecordingWebhook((attempt, request) -> RecordingWebhook.Response.OK);
             AlertDelivery ignored = start(topic, webhook, Map.of())) {
            AlertFixtures.produceInTransaction(topic, first, second);
            await().atMost(WAIT).untilAsserted(() -> assertThat(webhook.accepted()).hasSize(2));
            // 2 alerts and the commit marker: a delivery that is up to date shows a lag of 0, not 1
            await().atMost(WAIT).until(() -> SharedKafka.committed(SharedKafka.bootstrapServers(), "g-" + topic + "-webhook", topic) == 3);
            assertThat(webhook.acceptedBodies()).containsExactly(Json.toString(first), Json.toString(second));
        }
    }

    @Test
    void shouldRetryAndDeliverEachRecordOnceWhenWebhookAnswers503() {
        String topic = topics();
        List<Alert> alerts = IntStream.range(0, 5).mapToObj(i -> firing("inc-" + i + "-" + topic, "j")).toList();
        try (RecordingWebhook webhook = new RecordingWebhook((attempt, request) -> attempt <= 3
                ? new RecordingWebhook.Response(503, "maintenance") : RecordingWebhook.Response.OK);
             AlertDelivery ignored = start(topic, webhook, Map.of())) {
            produce(topic, alerts.toArray());
            await().atMost(WAIT).untilAsserted(() -> assertThat(webhook.accepted()).hasSize(5));

            assertThat(webhook.acceptedBodies()).containsExactlyElementsOf(alerts.stream().map(Json::toString).toList());
            assertThat(webhook.attempts()).isEqualTo(8);
            assertThat(registry.counter("rdmamon.alerts.retries", "receiver", "webhook").count()).isEqualTo(3);
            assertThat(registry.counter("rdmamon.alerts.delivered", "receiver", "webhook").count()).isEqualTo(5);
        }
    }

    @Test
    void shouldDeliverAfterRestartWhatTheWebhookHadNotAcceptedWhenDeliveryStoppedDuringAnOutage() {
        String topic = topics();
        List<Alert> alerts = IntStream.range(0, 3).mapToObj(i -> firing("inc-" + i + "-" + topic, "j")).toList();
        AtomicBoolean down = new AtomicBoolean(true);
        try (RecordingWebhook webhook = new RecordingWebhook((attempt, request) -> down.get()
                ? new RecordingWebhook.Response(502, "bad gateway") : RecordingWebhook.Response.OK)) {
            try (AlertDelivery ignored = start(topic, webhook, Map.of())) {
                produce(topic, alerts.toArray());
                await().atMost(WAIT).until(() -> webhook.attempts() >= 2);
            }
            down.set(false);
            try (AlertDelivery ignored = start(topic, webhook, Map.of())) {
                await().atMost(WAIT).untilAsserted(() -> assertThat(webhook.accepted()).hasSize(3));
                assertThat(webhook.acceptedBodies())
                        .containsExactlyElementsOf(alerts.stream().map(Json::toString).toList());
            }
        }
    }

    @Test
    void shouldDeadLetterWithReasonAndGoOnWhenWebhookAnswers400OrRecordIsInvalid() throws Exception {
        String topic = topics();
        Alert first = firing("inc-1-" + topic, "j");
        Alert refused = firing("inc-2-" + topic, "refuse-me");
        Alert last = firing("inc-3-" + topic, "j");
        try (RecordingWebhook webhook = new RecordingWebhook((attempt, request) -> request.body().contains("refuse-me")
                ? new RecordingWebhook.Response(400, "{\"error\":\"unknown job\"}") : RecordingWebhook.Response.OK);
             AlertDelivery ignored = start(topic, webhook, Map.of())) {
            produce(topic, first, refused, "{not json", last);
            await().atMost(WAIT).untilAsserted(() -> assertThat(webhook.accepted()).hasSize(2));
            assertThat(webhook.acceptedBodies()).containsExactly(Json.toString(first), Json.toString(last));

            List<ConsumerRecord<byte[], byte[]>> dead = AlertFixtures.readAll("dlq-" + topic, 2, WAIT);
            assertThat(dead).hasSize(2);
            // the common dead-letter form: the original record in an envelope, reason and source as headers
            Map<String, DeadLetter> byOriginal = new java.util.HashMap<>();
            for (ConsumerRecord<byte[], byte[]> r : dead) {
                DeadLetter letter = Json.MAPPER.readValue(r.value(), DeadLetter.class);
                byOriginal.put(new String(java.util.Base64.getDecoder().decode(letter.valueBase64()),
                        StandardCharsets.UTF_8), letter);
            }
            DeadLetter rejected = byOriginal.get(Json.toString(refused));
            assertThat(rejected.reason()).contains("HTTP 400").contains("unknown job");
            assertThat(rejected.sourceTopic()).isEqualTo(topic);
            assertThat(rejected.offset()).isEqualTo(1L);
            ConsumerRecord<byte[], byte[]> rejectedRecord = dead.stream()
                    .filter(r -> header(r, DeadLetter.REASON_HEADER).contains("HTTP 400")).findFirst().orElseThrow();
            assertThat(header(rejectedRecord, DeadLetters.RECEIVER)).isEqualTo("webhook");
            assertThat(header(rejectedRecord, DeadLetter.TOPIC_HEADER)).isEqualTo(topic);
            assertThat(byOriginal.get("{not json").reason()).contains("not a valid alert");
            assertThat(registry.counter("rdmamon.alerts.dead.lettered", "receiver", "webhook", "reason", "rejected")
                    .count()).isEqualTo(1);
            assertThat(registry.counter("rdmamon.alerts.dead.lettered", "receiver", "webhook", "reason", "invalid")
                    .count()).isEqualTo(1);
        }
    }

    @Test
    void shouldKeepDeliveringToWebhookWhenAlertmanagerIsDown() throws Exception {
        String topic = topics();
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        List<Alert> alerts = IntStream.range(0, 3).mapToObj(i -> firing("inc-" + i + "-" + topic, "j")).toList();
        try (RecordingWebhook webhook = new RecordingWebhook((attempt, request) -> RecordingWebhook.Response.OK);
             AlertDelivery ignored = start(topic, webhook, Map.of(AlertsConfig.ALERTMANAGER_URL_CONFIG,
                     "http://127.0.0.1:" + closedPort))) {
            produce(topic, alerts.toArray());
            await().atMost(WAIT).untilAsserted(() -> assertThat(webhook.accepted()).hasSize(3));
            await().atMost(WAIT).until(() ->
                    registry.counter("rdmamon.alerts.failed", "receiver", "alertmanager").count() >= 1);
            assertThat(registry.counter("rdmamon.alerts.delivered", "receiver", "alertmanager").count()).isZero();
        }
    }

    private AlertDelivery start(String topic, RecordingWebhook webhook, Map<String, Object> overrides) {
        Map<String, Object> settings = new HashMap<>(overrides);
        settings.put(AlertsConfig.WEBHOOK_URL_CONFIG, webhook.url().toString());
        return AlertDelivery.start(new AlertsConfig(AlertFixtures.settings(topic, "dlq-" + topic, settings)),
                registry);
    }

    /** One partition: the order of arrival at the webhook is the order produced. */
    private static String topics() {
        String topic = SharedKafka.uniqueTopic("alerts");
        SharedKafka.createTopics(SharedKafka.bootstrapServers(), 1, topic, "dlq-" + topic);
        return topic;
    }
}
