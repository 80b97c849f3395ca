package io.rdmamon.sink;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.influx.InfluxSettings;
import io.rdmamon.model.Json;
import io.rdmamon.model.PortSample;
import io.rdmamon.testing.SharedKafka;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Testcontainers;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The v1 write and InfluxQL query path against InfluxDB 2.7 (a bucket named {@code rdmamon/rp_raw} gives the virtual
 * DBRP mapping db=rdmamon, rp=rp_raw; token auth) and InfluxDB 3 Core (v1 API native, no retention policy). In
 * addition to the tests on Debian's influxd 1.6; skipped where no Docker engine runs (as on the project's own build
 * machines, so these have not been run there).
 */
@Testcontainers(disabledWithoutDocker = true)
class InfluxCompatibilityContainersTest {
    private static final String TOKEN = "rdmamon-test-token";
    private static final int SAMPLES = 50;

    @Test
    void shouldWriteAndQueryThroughTheV1ApiOnInfluxDb2() throws Exception {
        try (GenericContainer<?> influx = new GenericContainer<>("influxdb:2.7")
                .withExposedPorts(8086)
                .withEnv("DOCKER_INFLUXDB_INIT_MODE", "setup")
                .withEnv("DOCKER_INFLUXDB_INIT_USERNAME", "rdmamon")
                .withEnv("DOCKER_INFLUXDB_INIT_PASSWORD", "rdmamon-password")
                .withEnv("DOCKER_INFLUXDB_INIT_ORG", "rdmamon")
                .withEnv("DOCKER_INFLUXDB_INIT_BUCKET", "rdmamon/rp_raw")
                .withEnv("DOCKER_INFLUXDB_INIT_ADMIN_TOKEN", TOKEN)
                .waitingFor(Wait.forHttp("/ping").forStatusCode(204))) {
            influx.start();
            String url = "http://" + influx.getHost() + ":" + influx.getMappedPort(8086);
            writeAndQueryBack(url, Map.of(InfluxSettings.TOKEN_CONFIG, TOKEN), "rp_raw", "Token " + TOKEN);
        }
    }

    @Test
    void shouldWriteAndQueryThroughTheV1ApiOnInfluxDb3Core() throws Exception {
        try (GenericContainer<?> influx = new GenericContainer<>("influxdb:3-core")
                .withExposedPorts(8181)
                .withCommand("influxdb3", "serve", "--node-id", "rdmamon-test", "--object-store", "memory",
                        "--without-auth")
                .waitingFor(Wait.forHttp("/health").forStatusCode(200))) {
            influx.start();
            String url = "http://" + influx.getHost() + ":" + influx.getMappedPort(8181);
            // 3 Core has no retention policies: the sink sends none
            writeAndQueryBack(url, Map.of(InfluxSettings.RETENTION_POLICY_CONFIG, ""), null, null);
        }
    }

    private static void writeAndQueryBack(String url, Map<String, Object> auth, String rp, String authorization)
            throws Exception {
        String bootstrap = SharedKafka.bootstrapServers();
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String topic = "compat-port-" + suffix;
        Map<String, Object> topics = Map.of(SinkConfig.TOPIC_PORT_SAMPLES_CONFIG, topic,
                SinkConfig.TOPIC_HOST_SAMPLES_CONFIG, "compat-host-" + suffix,
                SinkConfig.TOPIC_JOB_BANDWIDTH_CONFIG, "compat-job-" + suffix,
                SinkConfig.TOPIC_LINK_HEALTH_CONFIG, "compat-link-" + suffix,
                SinkConfig.TOPIC_ALERTS_CONFIG, "compat-alert-" + suffix,
                SinkConfig.TOPIC_DEAD_LETTER_CONFIG, "compat-dead-" + suffix);
        SharedKafka.createTopics(bootstrap, 1, topics.values().toArray(String[]::new));
        long base = System.currentTimeMillis() - 600_000;
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap),
                new StringSerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < SAMPLES; i++) {
                PortSample s = new PortSample(1, "n1", "mlx5_0", 1, base + i * 1000L, 1000, "sysfs", "ACTIVE", "LinkUp",
                        "Ethernet", 25_000_000_000L, 1e9 + i, 2e9, 1e5, 2e5, Map.of(), Map.of());
                producer.send(new ProducerRecord<>(topic, s.key(), Json.toBytes(s)));
            }
        }
        Map<String, Object> settings = new HashMap<>(auth);
        settings.put(InfluxSettings.URL_CONFIG, url);
        settings.putAll(topics);
        settings.put(SinkConfig.METRICS_PORT_CONFIG, "-1");
        settings.put("kafka.bootstrap.servers", bootstrap);
        settings.put("kafka.group.id", "compat-" + UUID.randomUUID());
        try (InfluxSink sink = new InfluxSink(new SinkConfig(settings), new SimpleMeterRegistry())) {
            Thread thread = new Thread(sink, "compat-sink");
            thread.start();
            String from = (rp == null ? "" : "\"" + rp + "\".") + "rdma_port";
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(
                    query(url, "SELECT count(tx_bytes_per_sec) FROM " + from, authorization))
                    .contains("[" + SAMPLES + "]", "," + SAMPLES + "]"));
            // a dashboard-style query: throughput per node over time
            assertThat(query(url, "SELECT sum(tx_bytes_per_sec) FROM " + from + " WHERE time > now() - 1h "
                    + "GROUP BY time(1m), \"node\" fill(none)", authorization)).contains("\"node\":\"n1\"");
        }
    }

    private static String query(String url, String influxQl, String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + "/query?db=rdmamon&q="
                + URLEncoder.encode(influxQl, StandardCharsets.UTF_8)));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString()).body();
    }
}
