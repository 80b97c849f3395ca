package io.rdmamon.streams;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.model.DeadLetter;
import io.rdmamon.model.Json;
import io.rdmamon.model.LinkHealth;
import io.rdmamon.model.Rejection;
import io.rdmamon.testing.ContractRecords;
import io.rdmamon.testing.SharedKafka;
import io.rdmamon.testing.TopicContent;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 14 as it was found: the three values another producer got through (a negative time, a negative rate, an
 * astronomic rate) written to the port-samples topic of a running stream app on a real broker. They end on the
 * dead-letter topic with a reason naming field and value, counted by reason, and the good sample after them is
 * processed as usual.
 */
class ContractDeadLetterEndToEndTest {
    private static final String KEY = "gpu-node-07/mlx5_0/1";

    @TempDir
    Path stateDir;

    @Test
    void shouldDeadLetterTheThreeValuesOfTheIssueWithReasons() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        Map<String, Object> settings = new HashMap<>();
        settings.put(StreamsAppConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers());
        settings.put(StreamsAppConfig.APPLICATION_ID_CONFIG, "rdmamon-contract-" + suffix);
        settings.put(StreamsAppConfig.STATE_DIR_CONFIG, stateDir.toString());
        settings.put(StreamsAppConfig.TOPICS_PARTITIONS_CONFIG, 1);
        for (String key : List.of(StreamsAppConfig.PORT_SAMPLES_TOPIC_CONFIG,
                StreamsAppConfig.HOST_SAMPLES_TOPIC_CONFIG, StreamsAppConfig.JOBS_TOPIC_CONFIG, StreamsAppConfig.JOB_BANDWIDTH_TOPIC_CONFIG,
                StreamsAppConfig.LINK_HEALTH_TOPIC_CONFIG, StreamsAppConfig.ALERTS_TOPIC_CONFIG,
                StreamsAppConfig.DEAD_LETTER_TOPIC_CONFIG)) {
            settings.put(key, key.substring("streams.topic.".length()) + "-" + suffix);
        }
        settings.put(StreamsAppConfig.COMMIT_INTERVAL_CONFIG, 100);
        StreamsAppConfig config = new StreamsAppConfig(settings);
        StreamsAppConfig.TopicNames topics = config.topics();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        long now = System.currentTimeMillis();
        Map<String, Object> good = ContractRecords.portSample();
        good.put("ts", now);
        Map<String, Object> negativeTime = new HashMap<>(good);
        negativeTime.put("ts", -5);
        Map<String, Object> negativeRate = new HashMap<>(good);
        negativeRate.put("txBytesPerSec", -1e9);
        // no nominal rate: the ceiling alone must refuse it
        Map<String, Object> hugeRate = new HashMap<>(good);
        hugeRate.remove("rateBytesPerSec");
        hugeRate.put("rxBytesPerSec", 1e308);

        try (StreamsApp app = new StreamsApp(config, registry).start();
             KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                     ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers(),
                     ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new ByteArraySerializer())) {
            await().atMost(Duration.ofSeconds(60)).until(() -> app.state() == KafkaStreams.State.RUNNING);
            // one partition, one key: the good sample is processed after the three bad ones
            for (Map<String, Object> sample : List.of(negativeTime, negativeRate, hugeRate, good)) {
                producer.send(new ProducerRecord<>(topics.portSamples(), null, now, KEY, Json.toBytes(sample)));
            }
            producer.flush();

            await().atMost(Duration.ofSeconds(60)).until(() ->
                    !TopicContent.readAll(SharedKafka.bootstrapServers(), topics.linkHealth()).isEmpty());
            List<ConsumerRecord<String, byte[]>> letters = TopicContent.readAll(SharedKafka.bootstrapServers(),
                    topics.deadLetter());

            assertThat(letters).extracting(r -> header(r, DeadLetter.REASON_HEADER)).containsExactly(
                    "field 'ts' is -5: not an epoch-ms time from 2001-09-09 (1000000000000) to 2100-01-01 "
                            + "(4102444800000)",
                    "field 'txBytesPerSec' is negative: -1.0E9",
                    "field 'rxBytesPerSec' is 1.0E308: above 1.0E12 (contract.rate.max.bytes.per.sec)");
            DeadLetter first = Json.MAPPER.readValue(letters.get(0).value(), DeadLetter.class);
            assertThat(first.sourceTopic()).isEqualTo(topics.portSamples());
            assertThat(first.key()).isEqualTo(KEY);
            assertThat(first.reason()).startsWith("field 'ts' is -5");
            assertThat(letters).extracting(r -> header(r, DeadLetter.TOPIC_HEADER)).containsOnly(topics.portSamples());

            assertThat(deadLetters(registry, topics.portSamples(), Rejection.IMPLAUSIBLE_TIME)).isEqualTo(1.0);
            assertThat(deadLetters(registry, topics.portSamples(), Rejection.NEGATIVE)).isEqualTo(1.0);
            assertThat(deadLetters(registry, topics.portSamples(), Rejection.RATE_TOO_HIGH)).isEqualTo(1.0);

            List<LinkHealth> health = TopicContent.readAll(SharedKafka.bootstrapServers(), topics.linkHealth())
                    .stream().map(r -> read(r.value())).toList();
            assertThat(health).singleElement().satisfies(h -> {
                assertThat(h.ts()).isEqualTo(now);
                assertThat(h.txBytesPerSec()).isEqualTo(9.5e8);
                assertThat(h.rxBytesPerSec()).isEqualTo(9.5e8);
            });
        }
    }

    private static double deadLetters(SimpleMeterRegistry registry, String topic, String reason) {
        Counter counter = registry.find(DeadLetterCounters.NAME).tag("topic", topic).tag("reason", reason).counter();
        return counter == null ? 0 : counter.count();
    }

    private static String header(ConsumerRecord<String, byte[]> record, String name) {
        Header h = record.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static LinkHealth read(byte[] json) {
        try {
            return Json.MAPPER.readValue(json, LinkHealth.class);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
