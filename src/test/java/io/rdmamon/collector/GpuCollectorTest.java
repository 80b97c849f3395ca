package io.rdmamon.collector;

import com.fasterxml.jackson.databind.JsonNode;
import io.rdmamon.cli.Main;
import io.rdmamon.collector.gpu.FakeNvidiaSmi;
import io.rdmamon.collector.gpu.GpuConfig;
import io.rdmamon.collector.publish.KafkaSampleSink;
import io.rdmamon.collector.publish.PublishConfig;
import io.rdmamon.metrics.MetricsEndpoint;
import io.rdmamon.model.GpuSample;
import io.rdmamon.model.Json;
import io.rdmamon.model.NodePartitioner;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The GPU source inside the collector: stand-in nvidia-smi scripts printing recorded H200 output. */
class GpuCollectorTest {
    private static final String GPU_0 = "GPU-fa2badef-49a9-1483-88ed-34afc018aeb1";

    @Test
    void shouldPublishGpuSamplesKeyedByNodeAndIndexInTheNodesPartitionBesideItsPortSamples(@TempDir Path dir)
            throws Exception {
        String bootstrap = SharedKafka.bootstrapServers();
        String portTopic = SharedKafka.uniqueTopic("port-samples");
        String gpuTopic = SharedKafka.uniqueTopic("gpu-samples");
        SharedKafka.createTopics(bootstrap, 4, portTopic, gpuTopic);
        SysfsTreeWriter tree = new SysfsTreeWriter(dir.resolve("sys"));
        tree.addDevice("mlx5_0", DeviceKind.MLX5, 1, SysfsTreeWriter.INFINIBAND);
        Path smi = new FakeNvidiaSmi(dir).streaming(FakeNvidiaSmi.recorded("nvidia-smi-h200-busy.csv"), 1,
                FakeNvidiaSmi.recorded("nvidia-smi-apps-busy.csv"), null);
        Map<String, Object> settings = new HashMap<>(FakeNvidiaSmi.config(smi,
                GpuConfig.PROCESSES_CONFIG, "true"));
        settings.putAll(Map.of(
                CollectorConfig.SYSFS_ROOT_CONFIG, dir.resolve("sys").toString(),
                CollectorConfig.NODE_CONFIG, "gpu-5",
                CollectorConfig.PORT_SAMPLES_TOPIC_CONFIG, portTopic,
                CollectorConfig.GPU_SAMPLES_TOPIC_CONFIG, gpuTopic,
                CollectorConfig.INTERVAL_MS_CONFIG, "300",
                "eadm.enabled", "false",
                PublishConfig.SPILL_PATH_CONFIG, dir.resolve("spill").toString(),
                PublishConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
        CollectorConfig config = CollectorConfig.load(null, Map.of(), settings);
        int published = 0;
        try (MetricsEndpoint metrics = new MetricsEndpoint();
             Collector collector = CollectorCommand.build(config, Map.of(), metrics,
                     new KafkaSampleSink(new PublishConfig(config.originals()), metrics.registry()))) {
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (published < 6 && System.nanoTime() < deadline) {
                Collector.Pass pass = collector.pass();
                collector.publish(pass);
                published += (int) pass.gpus().stream().filter(s -> s.processes() != null).count();
                Thread.sleep(300);
            }
        }
        // the sink was closed above, which delivers what it holds
        List<ConsumerRecord<String, byte[]>> gpuRecords = TopicContent.readAll(bootstrap, gpuTopic);
        Map<String, List<GpuSample>> byKey = new HashMap<>();
        for (ConsumerRecord<String, byte[]> r : gpuRecords) {
            GpuSample s = Json.MAPPER.readValue(r.value(), GpuSample.class);
            assertThat(r.timestamp()).isEqualTo(s.ts());
            assertThat(r.partition()).isEqualTo(NodePartitioner.partition("gpu-5", 4));
            byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(s);
        }
        assertThat(byKey).containsOnlyKeys("gpu-5/0", "gpu-5/1");
        GpuSample last = byKey.get("gpu-5/0").get(byKey.get("gpu-5/0").size() - 1);
        assertThat(last.uuid()).isEqualTo(GPU_0);
        // measured: the pass's 300 ms sleep and the pass itself
        assertThat(last.intervalMs()).isBetween(300L, 1_000L);
        assertThat(last.utilizationPercent()).isBetween(98.0, 99.0);
        assertThat(last.processes()).isEqualTo(1);
        // the node's port samples share the partition: one consumer sees a node's NICs and GPUs together
        assertThat(TopicContent.readAll(bootstrap, portTopic)).isNotEmpty()
                .allMatch(r -> r.partition() == NodePartitioner.partition("gpu-5", 4));
        // the bytes on the topic follow the contract's field order
        String json = new String(gpuRecords.get(gpuRecords.size() - 1).value(), StandardCharsets.UTF_8);
        assertThat(json).startsWith("{\"v\":1,\"node\":\"gpu-5\",\"gpu\":").contains(",\"uuid\":\"GPU-")
                .containsPattern("\"powerWatts\":[0-9.]+,\"smClockMHz\":1980.0,\"processes\":1}$");
    }

    @Test
    void shouldGoOnWithPortAndHostSamplesWhenTheNodeHasNoNvidiaDriver(@TempDir Path dir) throws Exception {
        SysfsTreeWriter tree = new SysfsTreeWriter(dir.resolve("sys"));
        tree.addDevice("mlx5_0", DeviceKind.MLX5, 1, SysfsTreeWriter.INFINIBAND);
        tree.addInterface("eth0");
        Path smi = new FakeNvidiaSmi(dir).script("nvidia-smi", "echo \"" + FakeNvidiaSmi.NO_DRIVER + "\"\nexit 9");
        Map<String, Object> settings = new HashMap<>(FakeNvidiaSmi.config(smi));
        settings.putAll(Map.of(
                CollectorConfig.SYSFS_ROOT_CONFIG, dir.resolve("sys").toString(),
                CollectorConfig.NODE_CONFIG, "cpu-1",
                CollectorConfig.HOST_INTERFACES_CONFIG, "eth0",
                "eadm.enabled", "false"));
        CollectorConfig config = CollectorConfig.load(null, Map.of(), settings);
        try (MetricsEndpoint metrics = new MetricsEndpoint();
             Collector collector = CollectorCommand.build(config, Map.of(), metrics, new StdoutSink(System.out))) {
            await().atMost(Duration.ofSeconds(20)).until(() ->
                    metrics.registry().get("rdmamon.gpu.off").gauge().value() == 1.0);
            for (int i = 0; i < 3; i++) {
                Collector.Pass pass = collector.pass();
                assertThat(pass.ports()).hasSize(1);
                assertThat(pass.hosts()).hasSize(1);
                assertThat(pass.gpus()).isEmpty();
            }
        }
    }

    @Test
    void shouldPrintGpuSamplesWithThePortsWhenRunOnce(@TempDir Path dir) throws Exception {
        SysfsTreeWriter tree = new SysfsTreeWriter(dir.resolve("sys"));
        tree.addDevice("mlx5_0", DeviceKind.MLX5, 1, SysfsTreeWriter.INFINIBAND);
        Path smi = new FakeNvidiaSmi(dir).streaming(FakeNvidiaSmi.recorded("nvidia-smi-h200-idle.csv"), 2, null,
                null);
        StringWriter out = new StringWriter();
        CommandLine cmd = Main.commandLine();
        cmd.setOut(new PrintWriter(out));

        int code = cmd.execute("collector", "--once", "--sysfs", dir.resolve("sys").toString(), "--interval", "1s",
                "--node", "gpu-6", "--set", "eadm.enabled=false", "--set", GpuConfig.COMMAND_CONFIG + "=" + smi,
                "--set", GpuConfig.PROCESSES_CONFIG + "=false");

        assertThat(code).isZero();
        List<JsonNode> gpus = new ArrayList<>();
        for (String line : out.toString().split("\n")) {
            JsonNode record = Json.MAPPER.readTree(line);
            if (record.has("gpu")) {
                gpus.add(record);
            }
        }
        assertThat(gpus).extracting(g -> g.get("gpu").asInt()).containsExactly(0, 1);
        assertThat(gpus.get(0).get("uuid").asText()).isEqualTo(GPU_0);
        assertThat(gpus.get(0).get("powerWatts").asDouble()).isBetween(76.5, 76.62);
        assertThat(gpus.get(0).get("smClockMHz").asDouble()).isEqualTo(345.0);
        assertThat(gpus.get(0).get("processes").isNull()).isTrue();
    }
}
