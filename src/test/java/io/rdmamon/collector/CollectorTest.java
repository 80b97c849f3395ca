package io.rdmamon.collector;

import com.fasterxml.jackson.databind.JsonNode;
import io.rdmamon.cli.Main;
import io.rdmamon.collector.publish.KafkaSampleSink;
import io.rdmamon.collector.publish.PublishConfig;
import io.rdmamon.metrics.MetricsEndpoint;
import io.rdmamon.model.Json;
import io.rdmamon.model.PortSample;
import io.rdmamon.sim.SysfsTreeWriter;
import io.rdmamon.sim.SysfsTreeWriter.DeviceKind;
import io.rdmamon.testing.SharedKafka;
import io.rdmamon.testing.TopicContent;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class CollectorTest {
    private static final long MIB = 1_048_576;

    @Test
    void shouldPrintOneRecordPerPortWithRatesWhenRunOnce(@TempDir Path dir) throws Exception {
        SysfsTreeWriter tree = new SysfsTreeWriter(dir);
        tree.addDevice("mlx5_0", DeviceKind.MLX5, 2, SysfsTreeWriter.ETHERNET);
        tree.addDevice("erdma_0", DeviceKind.ERDMA_OUT_OF_TREE, 1, SysfsTreeWriter.ETHERNET);
        tree.addInterface("eth0");
        StringWriter out = new StringWriter();
        CommandLine cmd = Main.commandLine();
        cmd.setOut(new PrintWriter(out));
        CompletableFuture<Integer> run = CompletableFuture.supplyAsync(() -> cmd.execute("collector", "--once",
                "--sysfs", dir.toString(), "--interval", "300ms", "--node", "gpu-1", "--host-interfaces", "eth0"));
        while (!run.isDone()) {
            tree.addTraffic("mlx5_0", 1, 4 * MIB, 2 * MIB, 4_000, 2_000);
            tree.addTraffic("erdma_0", 1, MIB, MIB, 1_000, 1_000);
            tree.addInterfaceTraffic("eth0", MIB, 0, 100, 0);
            Thread.sleep(5);
        }
        assertThat(run.get()).isZero();
        List<JsonNode> records = new ArrayList<>();
        for (String line : out.toString().split("\n")) {
            records.add(Json.MAPPER.readTree(line));
        }
        assertThat(records).hasSize(4);
        Map<String, JsonNode> byPort = new HashMap<>();
        records.stream().filter(r -> r.has("device"))
                .forEach(r -> byPort.put(r.get("device").asText() + "/" + r.get("port").asInt(), r));
        assertThat(byPort).containsOnlyKeys("mlx5_0/1", "mlx5_0/2", "erdma_0/1");
        JsonNode busy = byPort.get("mlx5_0/1");
        assertThat(busy.get("node").asText()).isEqualTo("gpu-1");
        assertThat(busy.get("source").asText()).isEqualTo("sysfs");
        assertThat(busy.get("intervalMs").asLong()).isBetween(250L, 2_000L);
        // tx moves twice the rx bytes in every step; the tx and rx files are written one after the other, so a pass
        // may fall between them and count one step's tx without its rx (a few steps per interval on a busy machine)
        assertThat(busy.get("txBytesPerSec").asDouble()).isPositive();
        assertThat(busy.get("txBytesPerSec").asDouble() / busy.get("rxBytesPerSec").asDouble()).isBetween(1.5, 3.0);
        assertThat(byPort.get("mlx5_0/2").get("txBytesPerSec").asDouble()).isZero();
        assertThat(byPort.get("erdma_0/1").get("rxBytesPerSec").asDouble()).isPositive();
        JsonNode host = records.stream().filter(r -> r.has("iface")).findFirst().orElseThrow();
        assertThat(host.get("txBytesPerSec").asDouble()).isPositive();
    }

    @Test
    void shouldPublishEadmRatesWithSysfsStateWhenSysfsHasNoTrafficCounters(@TempDir Path dir) throws Exception {
        SysfsTreeWriter tree = new SysfsTreeWriter(dir.resolve("sys"));
        tree.addDevice("erdma_0", DeviceKind.ERDMA_UPSTREAM, 1, SysfsTreeWriter.ETHERNET);
        Path hw = tree.portDir("erdma_0", 1).resolve("hw_counters");
        for (String counter : List.of("tx_bytes_cnt", "rx_bytes_cnt", "tx_packets_cnt", "rx_packets_cnt")) {
            Files.deleteIfExists(hw.resolve(counter));
        }
        Path eadm = dir.resolve("fake-eadm");
        Files.writeString(eadm, "#!/bin/sh\nwhile true; do echo 'rx: 100.00 MiB/s 1000 p/s; tx: 50.00 MiB/s 500 p/s'; "
                + "sleep 0.05; done\n");
        Files.setPosixFilePermissions(eadm, PosixFilePermissions.fromString("rwxr-xr-x"));
        CollectorConfig config = CollectorConfig.load(null, Map.of(), Map.of(
                CollectorConfig.SYSFS_ROOT_CONFIG, dir.resolve("sys").toString(),
                CollectorConfig.NODE_CONFIG, "gpu-2",
                "eadm.command", eadm + " stat -d {device} -l"));
        try (MetricsEndpoint metrics = new MetricsEndpoint();
             Collector collector = CollectorCommand.build(config, Map.of(), metrics, new StdoutSink(System.out))) {
            collector.pass(); // starts eadm for the eRDMA device sysfs found
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                PortSample s = collector.pass().ports().get(0);
                assertThat(s.source()).isEqualTo(PortSample.SOURCE_EADM);
                assertThat(s.txBytesPerSec()).isEqualTo(50.0 * MIB);
                assertThat(s.rxPacketsPerSec()).isEqualTo(1000.0);
                assertThat(s.state()).isEqualTo("ACTIVE");
                assertThat(s.key()).isEqualTo("gpu-2/erdma_0/1");
            });
        }
    }

    @Test
    void shouldDeliverEveryPassToKafkaKeyedByPortWithTheSampleTime(@TempDir Path dir) throws Exception {
        String bootstrap = SharedKafka.bootstrapServers();
        String topic = SharedKafka.uniqueTopic("port-samples");
        SharedKafka.createTopics(bootstrap, 2, topic);
        SysfsTreeWriter tree = new SysfsTreeWriter(dir.resolve("sys"));
        tree.addDevice("mlx5_0", DeviceKind.MLX5, 1, SysfsTreeWriter.INFINIBAND);
        tree.addDevice("mlx5_1", DeviceKind.MLX5, 1, SysfsTreeWriter.INFINIBAND);
        Map<String, Object> settings = Map.of(
                CollectorConfig.SYSFS_ROOT_CONFIG, dir.resolve("sys").toString(),
                CollectorConfig.NODE_CONFIG, "gpu-3",
                CollectorConfig.PORT_SAMPLES_TOPIC_CONFIG, topic,
                "eadm.enabled", "false",
                PublishConfig.SPILL_PATH_CONFIG, dir.resolve("spill").toString(),
                PublishConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        CollectorConfig config = CollectorConfig.load(null, Map.of(), settings);
        List<Long> passTimes = new ArrayList<>();
        try (MetricsEndpoint metrics = new MetricsEndpoint();
             Collector collector = CollectorCommand.build(config, Map.of(), metrics,
                     new KafkaSampleSink(new PublishConfig(config.originals()), metrics.registry()))) {
            for (int i = 0; i < 5; i++) {
                tree.addTraffic("mlx5_0", 1, 1_000_000, 1_000_000, 100, 100);
                Collector.Pass pass = collector.pass();
                collector.publish(pass);
                passTimes.add(pass.ports().get(0).ts());
                Thread.sleep(20);
            }
        }
        // the sink was closed above, which delivers what it holds: the topic is complete
        Map<String, List<ConsumerRecord<String, byte[]>>> byKey = new HashMap<>();
        for (ConsumerRecord<String, byte[]> r : TopicContent.readAll(bootstrap, topic)) {
            byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r);
        }
        assertThat(byKey).containsOnlyKeys("gpu-3/mlx5_0/1", "gpu-3/mlx5_1/1");
        for (List<ConsumerRecord<String, byte[]>> records : byKey.values()) {
            assertThat(records).hasSize(5);
            List<Long> timestamps = records.stream().map(ConsumerRecord::timestamp).toList();
            assertThat(timestamps).isEqualTo(passTimes);
            PortSample first = Json.MAPPER.readValue(records.get(0).value(), PortSample.class);
            assertThat(first.intervalMs()).isZero();
            assertThat(first.ts()).isEqualTo(records.get(0).timestamp());
        }
        PortSample busy = Json.MAPPER.readValue(byKey.get("gpu-3/mlx5_0/1").get(4).value(), PortSample.class);
        assertThat(busy.txBytesPerSec()).isPositive();
        assertThat(busy.state()).isEqualTo("ACTIVE");
    }
}
