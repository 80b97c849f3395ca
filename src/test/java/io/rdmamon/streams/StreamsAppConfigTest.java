package io.rdmamon.streams;

import io.rdmamon.detect.DetectorConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StreamsAppConfigTest {
    @Test
    void shouldRejectInconsistentThresholdsWithTheirNames() {
        assertThatThrownBy(() -> new StreamsAppConfig(Map.of(DetectorConfig.STRAGGLER_MIN_FLAGGED_CONFIG, 5)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(DetectorConfig.STRAGGLER_MIN_FLAGGED_CONFIG)
                .hasMessageContaining(DetectorConfig.STRAGGLER_WINDOWS_CONFIG);
        assertThatThrownBy(() -> new StreamsAppConfig(Map.of(DetectorConfig.LINK_DEGRADED_CLASSES_CONFIG,
                "retransmit,bogus"))).isInstanceOf(ConfigException.class).hasMessageContaining("bogus");
        assertThatThrownBy(() -> new StreamsAppConfig(Map.of(StreamsAppConfig.WINDOW_SIZE_CONFIG, "ten")))
                .isInstanceOf(ConfigException.class).hasMessageContaining(StreamsAppConfig.WINDOW_SIZE_CONFIG);
        assertThatThrownBy(() -> new StreamsAppConfig(Map.of(DetectorConfig.STALL_LATENESS_CONFIG, 4_500)))
                .isInstanceOf(ConfigException.class).hasMessageContaining(DetectorConfig.STALL_LATENESS_CONFIG)
                .hasMessageContaining(DetectorConfig.STALL_MIN_QUIET_CONFIG);
    }

    @Test
    void shouldPassKafkaSettingsThroughToKafkaStreams() {
        StreamsAppConfig cfg = new StreamsAppConfig(Map.of("kafka.security.protocol", "SSL",
                StreamsAppConfig.APPLICATION_ID_CONFIG, "my-app"));
        assertThat(RdmamonTopology.streamsConfig(cfg)).containsEntry("security.protocol", "SSL")
                .containsEntry("application.id", "my-app").containsEntry("processing.guarantee", "exactly_once_v2");
    }

    @Test
    void shouldLetTheProducerLingerForTheCommitIntervalUnlessAKafkaKeySaysOtherwise() {
        StreamsAppConfig defaults = new StreamsAppConfig(Map.of());
        StreamsAppConfig faster = new StreamsAppConfig(Map.of(StreamsAppConfig.COMMIT_INTERVAL_CONFIG, "500"));
        StreamsAppConfig overridden = new StreamsAppConfig(Map.of("kafka.producer.linger.ms", "5"));

        // as Kafka Streams resolves it for its producer, over its own default of 100 ms (a kafka.* value stays a string)
        assertThat(producerSetting(defaults, ProducerConfig.LINGER_MS_CONFIG)).hasToString("1000");
        assertThat(producerSetting(faster, ProducerConfig.LINGER_MS_CONFIG)).hasToString("500");
        assertThat(producerSetting(overridden, ProducerConfig.LINGER_MS_CONFIG)).hasToString("5");
    }

    /** The producer settings the app chooses (batches that hold a commit's worth, lz4), each a kafka.* key overrides. */
    @ParameterizedTest
    @CsvSource({"batch.size, 65536, 16384", "compression.type, lz4, zstd"})
    void shouldSetTheProducerUnlessAKafkaKeySaysOtherwise(String key, String chosen, String override) {
        assertThat(producerSetting(new StreamsAppConfig(Map.of()), key)).hasToString(chosen);
        assertThat(producerSetting(new StreamsAppConfig(Map.of("kafka.producer." + key, override)), key))
                .hasToString(override);
    }

    /** The setting as Kafka Streams resolves it for its producer. */
    private static Object producerSetting(StreamsAppConfig cfg, String key) {
        return new StreamsConfig(RdmamonTopology.streamsConfig(cfg)).getProducerConfigs("client").get(key);
    }

    @Test
    void shouldPushNoClientMetricsToBrokersUnlessAKafkaKeySaysSo() {
        StreamsAppConfig defaults = new StreamsAppConfig(Map.of());
        StreamsAppConfig pushing = new StreamsAppConfig(Map.of("kafka.enable.metrics.push", "true"));

        assertThat(RdmamonTopology.streamsConfig(defaults)).containsEntry("enable.metrics.push", false)
                .containsEntry("main.consumer.processing.exception.handler.global.enabled", true);
        assertThat(RdmamonTopology.streamsConfig(pushing)).containsEntry("enable.metrics.push", "true");
    }
}
