package io.rdmamon.sink;

import io.rdmamon.influx.InfluxSetup;
import io.rdmamon.influx.MeasurementSpec;
import io.rdmamon.influx.Schema;
import io.rdmamon.model.Alert;
import io.rdmamon.model.GpuSample;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.Json;
import io.rdmamon.model.JobBandwidth;
import io.rdmamon.model.LinkHealth;
import io.rdmamon.model.PortSample;
import io.rdmamon.model.DeadLetter;
import io.rdmamon.testing.LocalInfluxd;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Real broker, real influxd: records of every type in, the same values out of InfluxQL. */
class InfluxSinkTest {
    /** Recent enough for the 7-day raw retention policy, on a minute boundary for the rollups. */
    private static final long TS = Instant.now().truncatedTo(ChronoUnit.MINUTES).minus(5, ChronoUnit.MINUTES)
            .toEpochMilli();

    private SinkFixture fixture;

    @BeforeEach
    void start() {
        fixture = new SinkFixture(LocalInfluxd.shared()).init().startSink();
    }

    @AfterEach
    void stop() throws Exception {
        fixture.close();
    }

    @Test
    void shouldWriteEveryRecordTypeWithExactTagsAndFieldsWhenPublished() {
        fixture.send(fixture.portTopic, "gpu-07/erdma_0/1", new PortSample(1, "gpu-07", "erdma_0", 1, TS, 1000,
                "sysfs", "ACTIVE", "LinkUp", "Ethernet", 25_000_000_000L, 9.5942E8, 9.5933E8, 147128.0, null,
                Map.of("tx_bps_limit_drop_cnt", 12L), Map.of("drop", 12L)));
        fixture.send(fixture.hostTopic, "gpu-07/eth0", new HostIfaceSample(1, "gpu-07", "eth0", TS, 1000, 1.25E8,
                null, 900.0, 800.0, Map.of("rx_dropped", 4L)));
        fixture.send(fixture.gpuTopic, "gpu-07/3", new GpuSample(1, "gpu-07", 3, "GPU-5f1c", TS, 1000, 100.0, 0.0,
                123.5, 1980.0, null));
        fixture.send(fixture.jobTopic, "uid-1", new JobBandwidth(1, "uid-1", "llama", "team-a", TS, TS + 10_000,
                3.0E9, 1.0E9, 2, 3, 1.5E9, 2.0E9, 2.5E9, true, List.of(
                new JobBandwidth.RankBandwidth(0, "gpu-01", 1.0E9, 0.5E9, 0.375, false),
                new JobBandwidth.RankBandwidth(1, "gpu-02", 2.0E9, 0.5E9, 0.625, true)), 1.0E9, 0.8, null, null));
        fixture.send(fixture.linkTopic, "gpu-07/erdma_0/1", new LinkHealth(1, "gpu-07", "erdma_0", 1, TS, "DOWN",
                "Polling", 25_000_000_000L, 0.0, 0.0, 0.0, 0.0, Map.of("linkDown", 1L), "uid-1", "team-a", 1));
        fixture.send(fixture.alertTopic, "a1", new Alert(1, "LINK_DOWN:gpu-07/erdma_0/1:" + TS, Alert.LINK_DOWN,
                Alert.FIRING, "critical", "llama", "team-a", "gpu 07,a=b", "erdma_0", 1, TS - 3_000, TS, null,
                "link \"erdma_0\" down\non gpu-07", Map.of()));
        fixture.flush();

        await().atMost(Duration.ofSeconds(30)).until(() -> fixture.count("alert", "id") == 1
                && fixture.count("job_rank_bandwidth", "share") == 2 && fixture.count("link_health", "state") == 1
                && fixture.count("host_iface_errors", "increment") == 1 && fixture.count("gpu", "power_watts") == 1
                && fixture.count("rdma_port_errors", "increment") == 1);

        assertThat(only("rdma_port")).isEqualTo(row("time", TS, "active", 1.0, "device", "erdma_0",
                "interval_seconds", 1.0, "link_layer", "Ethernet", "node", "gpu-07", "phys_state", "LinkUp", "port",
                "1", "rate_bytes_per_sec", 2.5E10, "rx_bytes_per_sec", 9.5933E8, "rx_packets_per_sec", null,
                "source", "sysfs", "state", "ACTIVE", "tx_bytes_per_sec", 9.5942E8, "tx_packets_per_sec", 147128.0));
        assertThat(only("rdma_port_errors")).isEqualTo(row("time", TS, "counter", "tx_bps_limit_drop_cnt",
                "device", "erdma_0", "error_class", "drop", "increment", 12.0, "node", "gpu-07", "port", "1",
                "source", "sysfs"));
        assertThat(only("host_iface")).isEqualTo(row("time", TS, "iface", "eth0", "interval_seconds", 1.0,
                "node", "gpu-07", "rx_bytes_per_sec", null, "rx_packets_per_sec", 800.0, "tx_bytes_per_sec", 1.25E8,
                "tx_packets_per_sec", 900.0));
        assertThat(only("host_iface_errors")).isEqualTo(row("time", TS, "counter", "rx_dropped", "iface", "eth0",
                "increment", 4.0, "node", "gpu-07"));
        assertThat(only("gpu")).isEqualTo(row("time", TS, "node", "gpu-07", "gpu", "3", "uuid", "GPU-5f1c",
                "interval_seconds", 1.0, "utilization_percent", 100.0, "memory_utilization_percent", 0.0,
                "power_watts", 123.5, "sm_clock_mhz", 1980.0, "processes", null));
        assertThat(only("job_bandwidth")).isEqualTo(row("time", TS, "bytes_per_sec", 4.0E9, "estimated", true,
                "host_bytes_per_sec", 1.0E9, "rdma_share", 0.8, "job", "llama", "job_uid", "uid-1", "namespace", "team-a", "rank_max_bytes_per_sec", 2.5E9,
                "rank_median_bytes_per_sec", 2.0E9, "rank_min_bytes_per_sec", 1.5E9, "ranks_expected", 3.0,
                "ranks_reporting", 2.0, "rx_bytes_per_sec", 1.0E9, "tx_bytes_per_sec", 3.0E9, "window_seconds", 10.0));
        assertThat(rows("SELECT * FROM rp_raw.job_rank_bandwidth")).containsExactly(
                row("time", TS, "bytes_per_sec", 1.5E9, "estimated", false, "job", "llama", "job_uid", "uid-1",
                        "namespace", "team-a", "node", "gpu-01", "rank", "0", "rx_bytes_per_sec", 0.5E9, "share", 0.375,
                        "tx_bytes_per_sec", 1.0E9),
                row("time", TS, "bytes_per_sec", 2.5E9, "estimated", true, "job", "llama", "job_uid", "uid-1",
                        "namespace", "team-a", "node", "gpu-02", "rank", "1", "rx_bytes_per_sec", 0.5E9, "share", 0.625,
                        "tx_bytes_per_sec", 2.0E9));
        assertThat(only("link_health")).isEqualTo(row("time", TS, "active", 0.0, "device", "erdma_0",
                "errors_drop", null, "errors_link_down", 1.0, "job_uid", "uid-1", "namespace", "team-a",
                "node", "gpu-07", "phys_state", "Polling", "port", "1", "rate_bytes_per_sec", 2.5E10, "shared_by", 1.0,
                "state", "DOWN",
                "tx_bytes_per_sec", 0.0, "rx_bytes_per_sec", 0.0, "tx_utilisation", 0.0, "rx_utilisation", 0.0,
                "utilisation", 0.0));
        assertThat(only("alert")).isEqualTo(row("time", TS, "detected_at_ms", (double) TS,
                "detection_delay_seconds", 3.0, "device", "erdma_0", "duration_seconds", null, "ends_at_ms", null,
                "firing", 1.0, "id", "LINK_DOWN:gpu-07/erdma_0/1:" + TS, "job", "llama", "namespace", "team-a",
                "node", "gpu 07,a=b", "port", "1", "rank", null, "severity", "critical", "starts_at_ms",
                (double) (TS - 3_000), "status", "firing", "summary", "link \"erdma_0\" down on gpu-07",
                "type", "LINK_DOWN"));
        assertFieldTypesMatchTheSchema();
        assertEveryMeasurementRollsUp();
    }

    @Test
    void shouldDeadLetterUnreadableRecordsAndWriteTheOthersWhenPoisonArrives() {
        PortSample good = new PortSample(1, "n1", "mlx5_0", 1, TS, 1000, "sysfs", "ACTIVE", null, null, null, 1.0,
                2.0, null, null, null, null);
        fixture.send(fixture.portTopic, "n1/mlx5_0/1", good);
        fixture.sendRaw(fixture.portTopic, "n1/mlx5_0/1", "not json at all".getBytes(StandardCharsets.UTF_8));
        fixture.sendRaw(fixture.portTopic, "n1/mlx5_0/1",
                "{\"v\":99,\"node\":\"n1\",\"device\":\"mlx5_0\",\"port\":1,\"ts\":1}".getBytes(StandardCharsets.UTF_8));
        fixture.sendRaw(fixture.alertTopic, "x", "{\"v\":1,\"type\":\"LINK_DOWN\",\"status\":\"firing\"}"
                .getBytes(StandardCharsets.UTF_8));
        fixture.send(fixture.gpuTopic, "n1/0", new GpuSample(1, "n1", 0, "GPU-1", TS, 1000, 150.0, 0.0, 120.0,
                1980.0, 1));
        fixture.send(fixture.gpuTopic, "n1/0", new GpuSample(1, "n1", 0, "GPU-1", TS + 1000, 1000, 100.0, 0.0,
                120.0, 1980.0, 1));
        fixture.send(fixture.portTopic, "n1/mlx5_0/1", new PortSample(1, "n1", "mlx5_0", 1, TS + 1000, 1000, "sysfs",
                "ACTIVE", null, null, null, 3.0, 4.0, null, null, null, null));
        fixture.flush();

        List<ConsumerRecord<byte[], byte[]>> dead = readDeadLetters(4);

        // port samples are parsed as the stream app parses them, so their reasons are the stream app's
        assertThat(dead).extracting(r -> header(r, DeadLetter.REASON_HEADER)).containsExactlyInAnyOrder(
                "not JSON: Unrecognized token 'not': was expecting (JSON String, Number, Array, "
                        + "Object or token 'null', 'true' or 'false')",
                "unknown schema version v=99 (this rdmamon reads v=1)",
                "missing id",
                "field 'utilizationPercent' is 150.0: above 100 %");
        assertThat(dead).extracting(r -> header(r, DeadLetter.TOPIC_HEADER))
                .containsOnly(fixture.portTopic, fixture.alertTopic, fixture.gpuTopic);
        DeadLetter notJson = dead.stream().map(r -> envelope(r.value()))
                .filter(d -> d.reason().startsWith("not JSON")).findFirst().orElseThrow();
        assertThat(notJson.sourceTopic()).isEqualTo(fixture.portTopic);
        assertThat(notJson.offset()).isEqualTo(1L);
        assertThat(notJson.key()).isEqualTo("n1/mlx5_0/1");
        assertThat(Base64.getDecoder().decode(notJson.valueBase64())).asString(StandardCharsets.UTF_8)
                .isEqualTo("not json at all");
        await().atMost(Duration.ofSeconds(30)).until(() -> fixture.count("rdma_port", "tx_bytes_per_sec") == 2
                && fixture.count("gpu", "utilization_percent") == 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> fixture.committed(fixture.portTopic) == 4
                && fixture.committed(fixture.alertTopic) == 1 && fixture.committed(fixture.gpuTopic) == 2);
        assertThat(fixture.counter("rdmamon.sink.records.dead.lettered")).isEqualTo(4.0);
    }

    @Test
    void shouldNotDuplicatePointsWhenTheTopicsAreReadAgain() throws Exception {
        for (int i = 0; i < 3; i++) {
            fixture.send(fixture.portTopic, "n1/mlx5_0/1", new PortSample(1, "n1", "mlx5_0", 1, TS + i * 1000L, 1000,
                    "sysfs", "ACTIVE", null, null, null, 1.0 + i, 2.0, null, null, Map.of("port_rcv_errors", 1L),
                    null));
        }
        fixture.send(fixture.jobTopic, "uid-1", new JobBandwidth(1, "uid-1", "llama", "team-a", TS, TS + 10_000,
                1.0, 1.0, 1, 1, null, null, null, false, List.of(
                new JobBandwidth.RankBandwidth(0, "n1", 1.0, 1.0, 1.0, false)), null, null, null, null));
        fixture.flush();
        await().atMost(Duration.ofSeconds(30)).until(() -> fixture.committed(fixture.portTopic) == 3
                && fixture.committed(fixture.jobTopic) == 1);
        fixture.stopSink();

        String replay = "replay-" + fixture.suffix;
        fixture.startSink(new SinkConfig(fixture.settings(Map.of("kafka.group.id", replay))));
        await().atMost(Duration.ofSeconds(30)).until(() -> fixture.committed(replay, fixture.portTopic) == 3
                && fixture.committed(replay, fixture.jobTopic) == 1);

        assertThat(fixture.count("rdma_port", "tx_bytes_per_sec")).isEqualTo(3);
        assertThat(fixture.count("rdma_port_errors", "increment")).isEqualTo(3);
        assertThat(fixture.count("job_bandwidth", "bytes_per_sec")).isEqualTo(1);
        assertThat(fixture.count("job_rank_bandwidth", "bytes_per_sec")).isEqualTo(1);
    }

    @Test
    void shouldCommitPastTheTransactionMarkerWhenTheInputIsTransactional() {
        List<LinkHealth> healths = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            healths.add(new LinkHealth(1, "n1", "mlx5_0", 1, TS + i * 1000L, "ACTIVE", "LinkUp",
                    25_000_000_000L, 1.0E9, 1.0E9, 0.04, 0.04, Map.of(), "uid-1", "team-a"));
        }
        fixture.sendInTransaction(fixture.linkTopic, "n1/mlx5_0/1", healths);
        // 3 records and the commit marker; the coordinator writes the marker after commitTransaction() returns
        await().atMost(Duration.ofSeconds(30)).until(() -> fixture.endOffset(fixture.linkTopic) == 4);

        await().atMost(Duration.ofSeconds(30)).until(() -> fixture.committed(fixture.linkTopic) == 4);
        assertThat(fixture.count("link_health", "state")).isEqualTo(3);
    }

    private void assertFieldTypesMatchTheSchema() {
        for (MeasurementSpec m : Schema.ALL) {
            Map<String, String> declared = new HashMap<>();
            m.fields().forEach(f -> declared.put(f.name(), f.type().name().toLowerCase(Locale.ROOT)));
            List<Map<String, Object>> keys = rows("SHOW FIELD KEYS FROM rp_raw." + m.name());
            assertThat(keys).as(m.name()).isNotEmpty();
            keys.forEach(k -> assertThat(k.get("fieldType")).as(m.name() + "." + k.get("fieldKey"))
                    .isEqualTo(declared.get((String) k.get("fieldKey"))));
        }
    }

    private void assertEveryMeasurementRollsUp() {
        new InfluxSetup(fixture.client, new SinkConfig(fixture.settings(Map.of())).influx())
                .backfill(Duration.ofMinutes(30));
        for (MeasurementSpec m : Schema.ALL) {
            assertThat(rows("SELECT * FROM rp_1y." + m.name())).as("rollup of " + m.name()).isNotEmpty();
        }
        assertThat(rows("SELECT bytes_per_sec, bytes_per_sec_max, samples FROM rp_1y.job_bandwidth"))
                .containsExactly(row("time", TS, "bytes_per_sec", 4.0E9, "bytes_per_sec_max", 4.0E9, "samples", 1.0));
    }

    private Map<String, Object> only(String measurement) {
        List<Map<String, Object>> rows = rows("SELECT * FROM rp_raw." + measurement);
        assertThat(rows).as(measurement).hasSize(1);
        return rows.get(0);
    }

    private List<Map<String, Object>> rows(String query) {
        List<Map<String, Object>> rows = LocalInfluxd.rowMaps(fixture.client, fixture.database, query);
        // a field no point has is absent from the row or null in it: both mean "not written", never 0
        rows.forEach(r -> {
            r.values().removeIf(v -> v == null);
            r.computeIfPresent("time", (k, v) -> ((Number) v).longValue());
        });
        return rows;
    }

    /** Expected row; a null value documents a field that must not have been written. */
    private static Map<String, Object> row(Object... keyValues) {
        Map<String, Object> row = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            if (keyValues[i + 1] != null) {
                row.put((String) keyValues[i], keyValues[i + 1]);
            }
        }
        return row;
    }

    private List<ConsumerRecord<byte[], byte[]>> readDeadLetters(int expected) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, fixture.bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "dead-reader-" + fixture.suffix,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(fixture.deadTopic));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return records.size() >= expected;
            });
        }
        return records;
    }

    private static DeadLetter envelope(byte[] json) {
        try {
            return Json.MAPPER.readValue(json, DeadLetter.class);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }
}
