package io.rdmamon.sink;

import io.rdmamon.support.Backoff;
import io.rdmamon.influx.InfluxCredentials;
import io.rdmamon.influx.InfluxSettings;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SinkConfigTest {
    @Test
    void shouldUseDocumentedDefaultsWhenNothingIsSet() {
        SinkConfig config = SinkConfig.load(null, Map.of(), Map.of());

        assertThat(config.influx().url()).isEqualTo("http://127.0.0.1:8086");
        assertThat(config.influx().database()).isEqualTo("rdmamon");
        assertThat(config.influx().retentionPolicy()).isEqualTo("rp_raw");
        assertThat(config.influx().rollupRetentionPolicy()).isEqualTo("rp_1y");
        assertThat(config.influx().credentials().kind()).isEqualTo(InfluxCredentials.Kind.NONE);
        assertThat(config.inputTopics()).containsExactly("rdma.port-samples", "rdma.host-samples",
                "rdma.gpu-samples", "rdma.job-bandwidth", "rdma.link-health", "rdma.alerts");
        assertThat(config.deadLetterTopic()).isEqualTo("rdma.dead-letter");
        assertThat(config.consumerProps()).containsEntry("group.id", "rdmamon-sink")
                .containsEntry("enable.auto.commit", false).containsEntry("auto.offset.reset", "earliest");
    }

    @Test
    void shouldKeepAutoCommitOffAndPassKafkaSettingsWhenTheUserTriesToEnableIt() {
        SinkConfig config = SinkConfig.load(null, Map.of("RDMAMON_KAFKA_SECURITY_PROTOCOL", "SSL"), Map.of(
                "kafka.enable.auto.commit", "true", "kafka.group.id", "g", "kafka.bootstrap.servers", "b:9092"));

        assertThat(config.consumerProps()).containsEntry("enable.auto.commit", false).containsEntry("group.id", "g")
                .containsEntry("security.protocol", "SSL").containsEntry("bootstrap.servers", "b:9092");
        assertThat(config.producerProps()).containsEntry("security.protocol", "SSL")
                .containsEntry("bootstrap.servers", "b:9092").containsEntry("acks", "all")
                .doesNotContainKeys("group.id", "enable.auto.commit");
    }

    @Test
    void shouldReadSecretsFromEnvironmentOrFileAndHideThemWhenPrinted(@TempDir Path dir) throws Exception {
        Path tokenFile = Files.writeString(dir.resolve("token"), "s3cret-token\n");

        SinkConfig fromEnv = SinkConfig.load(null, Map.of("RDMAMON_INFLUX_PASSWORD", "s3cret-pw",
                "RDMAMON_INFLUX_USERNAME", "writer"), Map.of());
        SinkConfig fromFile = SinkConfig.load(null, Map.of(), Map.of(InfluxSettings.TOKEN_FILE_CONFIG,
                tokenFile.toString()));

        assertThat(fromEnv.influx().credentials().authorizationHeader())
                .isEqualTo(okhttp3.Credentials.basic("writer", "s3cret-pw"));
        assertThat(fromFile.influx().credentials().authorizationHeader()).isEqualTo("Token s3cret-token");
        assertThat(fromEnv.influx().toString()).contains("writer").doesNotContain("s3cret");
        assertThat(fromFile.influx().toString()).doesNotContain("s3cret");
    }

    @Test
    void shouldRefuseAmbiguousOrUnreadableCredentials(@TempDir Path dir) {
        Path missing = dir.resolve("absent");

        assertThatThrownBy(() -> SinkConfig.load(null, Map.of("RDMAMON_INFLUX_PASSWORD", "p",
                "RDMAMON_INFLUX_TOKEN", "t", "RDMAMON_INFLUX_USERNAME", "u"), Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("not both");
        assertThatThrownBy(() -> SinkConfig.load(null, Map.of("RDMAMON_INFLUX_PASSWORD", "p"), Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("influx.username is required");
        assertThatThrownBy(() -> SinkConfig.load(null, Map.of(), Map.of(InfluxSettings.TOKEN_FILE_CONFIG,
                missing.toString())))
                .isInstanceOf(ConfigException.class).hasMessageContaining(missing.toString());
    }

    @Test
    void shouldRejectBadNamesAndBackoffsWithTheKeyName() {
        assertThatThrownBy(() -> SinkConfig.load(null, Map.of(), Map.of(InfluxSettings.DATABASE_CONFIG, "a\"; DROP")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("influx.database");
        assertThatThrownBy(() -> SinkConfig.load(null, Map.of(), Map.of(InfluxSettings.RETENTION_DURATION_CONFIG,
                "a week"))).isInstanceOf(ConfigException.class).hasMessageContaining("influx.retention.duration");
        assertThatThrownBy(() -> SinkConfig.load(null, Map.of(), Map.of(
                SinkConfig.RETRY_BACKOFF_INITIAL_MS_CONFIG, "5000", SinkConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "1000")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("must not exceed");
    }

    @Test
    void shouldDoubleTheBackoffUpToTheMaximum() {
        Backoff backoff = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30));

        assertThat(backoff.delay(1)).isEqualTo(Duration.ofMillis(500));
        assertThat(backoff.delay(2)).isEqualTo(Duration.ofSeconds(1));
        assertThat(backoff.delay(6)).isEqualTo(Duration.ofSeconds(16));
        assertThat(backoff.delay(7)).isEqualTo(Duration.ofSeconds(30));
        assertThat(backoff.delay(1_000)).isEqualTo(Duration.ofSeconds(30));
    }
}
