package io.rdmamon.collector.publish;

import io.rdmamon.config.ConfigLoader;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PublishConfigTest {
    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "username=\"collector\" password=\"s3cret-pw\";";

    @Test
    void shouldApplyRdmamonDefaultsAndPassEveryKafkaSettingThroughWhenPrefixed() {
        Map<String, Object> loaded = ConfigLoader.load(PublishConfig.CONFIG, null,
                Map.of("RDMAMON_KAFKA_SASL_JAAS_CONFIG", JAAS),
                Map.of("kafka.bootstrap.servers", "k1:9093,k2:9093", "kafka.security.protocol", "SASL_SSL",
                        "kafka.sasl.mechanism", "PLAIN", "kafka.linger.ms", "20",
                        "kafka.value.serializer", "com.example.Ignored"),
                PublishConfig.KAFKA_PREFIX);

        Map<String, Object> producer = new PublishConfig(loaded).producerSettings();

        assertThat(producer).containsEntry("bootstrap.servers", "k1:9093,k2:9093")
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "PLAIN")
                .containsEntry("sasl.jaas.config", JAAS)
                .containsEntry("linger.ms", "20")
                .containsEntry("acks", "all")
                .containsEntry("enable.idempotence", true)
                .containsEntry("compression.type", "gzip")
                .containsEntry("delivery.timeout.ms", Integer.MAX_VALUE)
                .containsEntry("max.in.flight.requests.per.connection", 1)
                .containsEntry("metric.reporters", java.util.List.of())
                .containsEntry("enable.metrics.push", false)
                .containsEntry(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        assertThat(producer.keySet()).noneMatch(k -> k.startsWith("collector."));
    }

    @Test
    void shouldNeverShowCredentialsWhenDescribingTheProducer() {
        PublishConfig config = new PublishConfig(Map.of("kafka.bootstrap.servers", "k1:9093",
                "kafka.security.protocol", "SASL_SSL", "kafka.sasl.jaas.config", JAAS,
                "kafka.ssl.keystore.password", "ks-pw"));

        assertThat(config.describeProducer()).contains("k1:9093", "SASL_SSL")
                .doesNotContain("s3cret-pw", "ks-pw", "jaas");
    }

    @Test
    void shouldNameTheKeyWhenASettingIsInvalid() {
        assertThatThrownBy(() -> new PublishConfig(Map.of("kafka.bootstrap.servers", "k:9092",
                PublishConfig.MEMORY_BYTES_CONFIG, "1048576", PublishConfig.IN_FLIGHT_BYTES_CONFIG, "2097152")))
                .isInstanceOf(ConfigException.class).hasMessageContaining(PublishConfig.IN_FLIGHT_BYTES_CONFIG);
        assertThatThrownBy(() -> new PublishConfig(Map.of("kafka.bootstrap.servers", "k:9092",
                "kafka.compression.type", "brotli")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("kafka.compression.type");
        assertThatThrownBy(() -> new PublishConfig(Map.of()).producerSettings())
                .isInstanceOf(ConfigException.class).hasMessageContaining("kafka.bootstrap.servers");
    }
}
