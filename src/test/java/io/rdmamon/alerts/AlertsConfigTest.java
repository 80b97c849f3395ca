package io.rdmamon.alerts;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AlertsConfigTest {
    @Test
    void shouldUseDocumentedDefaultsWhenNothingIsSet() {
        AlertsConfig config = AlertsConfig.load(null, Map.of(), Map.of());

        assertThat(config.topic()).isEqualTo("rdma.alerts");
        assertThat(config.deadLetterTopic()).isEqualTo("rdma.dead-letter");
        assertThat(config.groupId()).isEqualTo("rdmamon-alerts");
        assertThat(config.resendInterval()).isEqualTo(Duration.ofMinutes(1));
        assertThat(config.alertmanagerUrls()).isEmpty();
        assertThat(config.webhookUrl()).isNull();
        assertThat(config.webhookToken()).isNull();
        assertThat(AlertDelivery.receivers(config, Clock.systemUTC())).isEmpty();
    }

    @Test
    void shouldTakeTheWebhookTokenFromTheEnvironmentAndNeverPrintIt() {
        AlertsConfig config = AlertsConfig.load(null, Map.of("RDMAMON_ALERTS_WEBHOOK_TOKEN", "tok-123",
                "RDMAMON_ALERTS_WEBHOOK_URL", "https://hooks.example/T0/B0/secretpath?k=v"), Map.of());

        assertThat(config.webhookToken().value()).isEqualTo("tok-123");
        assertThat(config.webhookToken().toString()).doesNotContain("tok-123");
        assertThat(AlertDelivery.receivers(config, Clock.systemUTC())).singleElement()
                .satisfies(r -> assertThat(r.describe()).isEqualTo("webhook https://hooks.example/...")
                        .doesNotContain("secretpath"));
    }

    @Test
    void shouldGiveEachReceiverItsOwnConsumerGroupWithManualCommits() {
        AlertsConfig config = AlertsConfig.load(null, Map.of(), Map.of(
                AlertsConfig.ALERTMANAGER_URL_CONFIG, "http://am-0:9093,http://am-1:9093/",
                AlertsConfig.WEBHOOK_URL_CONFIG, "https://hooks.example/x",
                "kafka.bootstrap.servers", "kafka:9092", "kafka.enable.auto.commit", "true"));

        List<Receiver> receivers = AlertDelivery.receivers(config, Clock.systemUTC());

        assertThat(receivers).extracting(Receiver::name)
                .containsExactly("alertmanager-am-0-9093", "alertmanager-am-1-9093", "webhook");
        Map<String, Object> consumer = AlertDelivery.consumerSettings(config, "webhook");
        assertThat(consumer).containsEntry(ConsumerConfig.GROUP_ID_CONFIG, "rdmamon-alerts-webhook")
                .containsEntry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false)
                .containsEntry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                .containsEntry(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest")
                .containsEntry(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "kafka:9092");
    }

    @Test
    void shouldPostToTheV2ApiWhateverFormOfTheUrlIsGiven() {
        assertThat(AlertmanagerReceiver.endpoint(URI.create("http://am:9093")))
                .isEqualTo(URI.create("http://am:9093/api/v2/alerts"));
        assertThat(AlertmanagerReceiver.endpoint(URI.create("http://am:9093/")))
                .isEqualTo(URI.create("http://am:9093/api/v2/alerts"));
        assertThat(AlertmanagerReceiver.endpoint(URI.create("https://mon.example/alertmanager/api/v2/alerts")))
                .isEqualTo(URI.create("https://mon.example/alertmanager/api/v2/alerts"));
    }

    @Test
    void shouldFailAtStartWithTheKeyNameWhenAValueIsBad() {
        assertThatThrownBy(() -> AlertsConfig.load(null, Map.of(), Map.of(AlertsConfig.ALERTMANAGER_URL_CONFIG,
                "am:9093"))).isInstanceOf(ConfigException.class).hasMessageContaining("alerts.alertmanager.url");
        assertThatThrownBy(() -> AlertsConfig.load(null, Map.of(), Map.of(AlertsConfig.WEBHOOK_URL_CONFIG,
                "ftp://x/y?token=abc"))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("alerts.webhook.url").hasMessageNotContaining("token=abc");
        assertThatThrownBy(() -> AlertsConfig.load(null, Map.of(), Map.of(
                AlertsConfig.RETRY_BACKOFF_INITIAL_MS_CONFIG, "5000", AlertsConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "1000")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("alerts.retry.backoff.max.ms");
        assertThatThrownBy(() -> AlertDelivery.receivers(AlertsConfig.load(null, Map.of(), Map.of(
                AlertsConfig.WEBHOOK_URL_CONFIG, "http://x/", AlertsConfig.GENERATOR_URL_CONFIG, "https://g/{nope}")),
                Clock.systemUTC())).isInstanceOf(ConfigException.class).hasMessageContaining("{nope}");
    }
}
