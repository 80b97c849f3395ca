package io.rdmamon.collector.podresources;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.collector.Collector;
import io.rdmamon.collector.CollectorCommand;
import io.rdmamon.collector.CollectorConfig;
import io.rdmamon.collector.SampleSink;
import io.rdmamon.collector.eadm.EadmConfig;
import io.rdmamon.metrics.MetricsEndpoint;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.Json;
import io.rdmamon.model.PodDeviceMap;
import io.rdmamon.model.PortSample;
import io.rdmamon.testing.Ttar;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The collector inside an ACS pod (collector.mode=pod), over the sysfs a sidecar sees in a GU8TF pod (two mlx5
 * devices, eth0, hpn0) and in a P16EN pod (eth0 and hpn0, no RDMA device): its records are named after the pod, and
 * every device it sees is attributed to the pod, with no kubelet to ask.
 */
class InPodCollectorTest {
    private static final Map<String, String> DOWNWARD_API = Map.of("POD_NAMESPACE", "ml", "POD_NAME",
            "llm-worker-3", "NODE_NAME", "virtual-kubelet-cn-wulanchabu-c");

    @TempDir
    Path tmp;

    /** What the collector hands to Kafka, in order. */
    private static final class Recorded implements SampleSink {
        final List<String> topics = new ArrayList<>();
        final List<String> keys = new ArrayList<>();
        final List<byte[]> values = new ArrayList<>();

        @Override
        public void publish(String topic, String key, long timestampMs, byte[] value) {
            topics.add(topic);
            keys.add(key);
            values.add(value);
        }

        @Override
        public void close() {
        }
    }

    private static CollectorConfig podMode(Path sysfs) {
        return new CollectorConfig(Map.of(CollectorConfig.MODE_CONFIG, CollectorConfig.MODE_POD,
                CollectorConfig.SYSFS_ROOT_CONFIG, sysfs.toString(), CollectorConfig.METRICS_PORT_CONFIG, -1,
                EadmConfig.ENABLED_CONFIG, "false"));
    }

    private static void add(Path counter, long by) throws IOException {
        Files.writeString(counter, (Long.parseLong(Files.readString(counter).trim()) + by) + "\n");
    }

    private Collector.Pass twoPasses(Path sysfs, List<String> ports) throws Exception {
        try (MetricsEndpoint metrics = new MetricsEndpoint();
             Collector collector = CollectorCommand.build(podMode(sysfs), DOWNWARD_API, metrics, new Recorded())) {
            collector.pass();
            for (String port : ports) {
                add(sysfs.resolve("class/infiniband/" + port + "/counters/port_xmit_data"), 250_000_000);
                add(sysfs.resolve("class/infiniband/" + port + "/counters/port_rcv_data"), 250_000_000);
            }
            add(sysfs.resolve("class/net/eth0/statistics/tx_bytes"), 3_000_000_000L);
            add(sysfs.resolve("class/net/eth0/statistics/rx_bytes"), 3_000_000_000L);
            Thread.sleep(100); // a measurable interval between the two readings: rates are per second of it
            return collector.pass();
        }
    }

    private PodDeviceMap inPodMap(Path sysfs) throws IOException {
        Recorded sink = new Recorded();
        PodDeviceReporter reporter = new PodDeviceReporter(new InPodDevices(sysfs, "ml", "llm-worker-3",
                java.util.regex.Pattern.compile(".*"), null, List::of), "ml.llm-worker-3", "rdma.pod-devices",
                Duration.ofMinutes(5), sink, Clock.systemUTC(), new SimpleMeterRegistry());
        PodDeviceMap map = reporter.poll();
        assertThat(sink.keys).containsExactly("ml.llm-worker-3");
        assertThat(Json.MAPPER.readValue(sink.values.get(0), PodDeviceMap.class).pods()).isEqualTo(map.pods());
        return map;
    }

    @Test
    void shouldNameAGu8tfPodsRecordsAfterThePodAndAttributeItsDevicesToIt() throws Exception {
        Path sysfs = Ttar.unpackResource("/fixtures/acs-pod-gu8tf.ttar", tmp).resolve("sys");

        Collector.Pass pass = twoPasses(sysfs, List.of("mlx5_0/ports/1", "mlx5_1/ports/1"));

        assertThat(pass.ports()).extracting(PortSample::key)
                .containsExactly("ml.llm-worker-3/mlx5_0/1", "ml.llm-worker-3/mlx5_1/1");
        // 250e6 four-octet units each way: 1e9 bytes over the interval
        assertThat(pass.ports()).allSatisfy(p -> assertThat(p.txBytesPerSec()).isGreaterThan(1e9));
        assertThat(pass.hosts()).extracting(HostIfaceSample::key)
                .containsExactly("ml.llm-worker-3/eth0", "ml.llm-worker-3/hpn0");
        assertThat(inPodMap(sysfs).pods()).singleElement().satisfies(p -> {
            assertThat(p.namespace()).isEqualTo("ml");
            assertThat(p.pod()).isEqualTo("llm-worker-3");
            assertThat(p.devices()).containsExactly("mlx5_0", "mlx5_1");
            assertThat(p.shared()).isFalse();
        });
    }

    @Test
    void shouldSampleTheSocketInterfacesOfAP16enPodThatHasNoRdmaDevice() throws Exception {
        Path sysfs = Ttar.unpackResource("/fixtures/acs-pod-p16en.ttar", tmp).resolve("sys");

        Collector.Pass pass = twoPasses(sysfs, List.of());

        assertThat(pass.ports()).isEmpty();
        assertThat(pass.hosts()).extracting(HostIfaceSample::key)
                .containsExactly("ml.llm-worker-3/eth0", "ml.llm-worker-3/hpn0");
        assertThat(pass.hosts().get(0).txBytesPerSec()).isGreaterThan(3e9);
        assertThat(inPodMap(sysfs).pods()).singleElement()
                .satisfies(p -> assertThat(p.devices()).isEmpty());
    }

    @Test
    void shouldRefuseToStartInPodModeWithoutThePodsIdentity() {
        CollectorConfig config = podMode(tmp);

        assertThatThrownBy(() -> config.node(Map.of("NODE_NAME", "virtual-kubelet-cn-wulanchabu-c")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("POD_NAMESPACE and POD_NAME");
        assertThat(config.node(DOWNWARD_API)).isEqualTo("ml.llm-worker-3");
        assertThat(config.hostInterfaces()).containsExactly("eth0", "hpn0");
    }
}
