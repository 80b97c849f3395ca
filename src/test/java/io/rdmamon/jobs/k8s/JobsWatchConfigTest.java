package io.rdmamon.jobs.k8s;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JobsWatchConfigTest {
    @Test
    void shouldKeepIdempotenceOnAndPassKafkaSettingsThroughWhenTheUserTriesToTurnItOff() {
        JobsWatchConfig config = JobsWatchConfig.load(null, Map.of("RDMAMON_KAFKA_SECURITY_PROTOCOL", "SASL_SSL"),
                Map.of("kafka.bootstrap.servers", "k:9092", "kafka.enable.idempotence", "false", "kafka.acks", "1"));

        assertThat(config.producerSettings()).containsEntry("bootstrap.servers", "k:9092")
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("enable.idempotence", true).containsEntry("acks", "all")
                .containsEntry("client.id", "rdmamon-jobs-watch");
        assertThat(config.readerSettings("jobs-reader")).containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("client.id", "rdmamon-jobs-watch-jobs-reader")
                .containsEntry("allow.auto.create.topics", false)
                .doesNotContainKeys("acks", "enable.idempotence", "group.id");
        assertThat(config.namespace()).isNull();
        assertThat(config.podDevicesTopic()).isEqualTo("rdma.pod-devices");
    }

    @Test
    void shouldRefuseToStartWhenNoBrokerIsGivenOrATypeIsBothRankedAndSkipped() {
        JobsWatchConfig noBroker = new JobsWatchConfig(Map.of());

        assertThatThrownBy(noBroker::producerSettings).isInstanceOf(ConfigException.class)
                .hasMessageContaining("kafka.bootstrap.servers");
        assertThatThrownBy(() -> new JobsWatchConfig(Map.of(JobsWatchConfig.RANK_SKIP_CONFIG, "worker")))
                .isInstanceOf(ConfigException.class).hasMessageContaining(JobsWatchConfig.RANK_ORDER_CONFIG);
    }
}
