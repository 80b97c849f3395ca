package io.rdmamon.support;

import io.rdmamon.testing.SharedKafka;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Waiting for new topics to take writes, against the shared real broker. */
class KafkaOffsetsTest {

    @Test
    void shouldReturnOnceEveryPartitionOfNewTopicsTakesWrites() throws Exception {
        String a = SharedKafka.uniqueTopic("writable-a");
        String b = SharedKafka.uniqueTopic("writable-b");
        String bootstrap = SharedKafka.bootstrapServers();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(a, 3, (short) 1), new NewTopic(b, 2, (short) 1))).all().get();
            KafkaOffsets.awaitWritable(admin, List.of(a, b), Duration.ofSeconds(30));

            // right away, as the demo's collectors do: two batches in flight to each partition
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.LINGER_MS_CONFIG, 0,
                    ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
                    10_000), new StringSerializer(), new StringSerializer())) {
                for (int round = 0; round < 2; round++) {
                    for (int p = 0; p < 3; p++) {
                        producer.send(new ProducerRecord<>(a, p, "k", "v"));
                    }
                    for (int p = 0; p < 2; p++) {
                        producer.send(new ProducerRecord<>(b, p, "k", "v"));
                    }
                }
                producer.flush();
            }
            Map<TopicPartition, Long> ends = KafkaOffsets.endOffsets(admin, List.of(a, b));
            assertThat(ends).hasSize(5).allSatisfy((tp, end) -> assertThat(end).as(tp.toString()).isEqualTo(2L));
        }
    }

    @Test
    void shouldNameTheTopicsWhenTheyNeverTakeWrites() throws Exception {
        String missing = SharedKafka.uniqueTopic("never-created");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                SharedKafka.bootstrapServers()))) {
            assertThatThrownBy(() -> KafkaOffsets.awaitWritable(admin, List.of(missing), Duration.ofMillis(500)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(missing)
                    .hasMessageContaining("no leader serving them");
        }
    }
}
