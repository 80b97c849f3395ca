package io.rdmamon.collector.podresources;

import io.grpc.Status;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.collector.publish.KafkaSampleSink;
import io.rdmamon.collector.publish.PublishConfig;
import io.rdmamon.model.JsonSerde;
import io.rdmamon.model.PodDeviceMap;
import io.rdmamon.model.PodDeviceMap.PodDevices;
import io.rdmamon.testing.SharedKafka;
import io.rdmamon.testing.TopicContent;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static io.rdmamon.collector.podresources.FakeKubelet.held;
import static io.rdmamon.collector.podresources.FakeKubelet.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The collector side of device attribution: a real unix-socket kubelet endpoint in, the real broker out. */
class PodDeviceReporterTest {
    private static final Duration REPUBLISH = Duration.ofMinutes(5);

    @TempDir
    Path dir;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);
    private final Clock clock = new Clock() {
        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(now.get());
        }
    };

    private KafkaSampleSink sink(String bootstrap) {
        return new KafkaSampleSink(new PublishConfig(Map.of(
                PublishConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                PublishConfig.SPILL_PATH_CONFIG, dir.resolve("spill").toString(),
                PublishConfig.CLOSE_TIMEOUT_MS_CONFIG, 5_000L)), registry);
    }

    private static List<PodDeviceMap> read(String bootstrap, String topic) {
        var serde = JsonSerde.of(PodDeviceMap.class).deserializer();
        List<ConsumerRecord<String, byte[]>> records = TopicContent.readAll(bootstrap, topic);
        records.forEach(r -> assertThat(r.key()).isEqualTo("node-a"));
        records.forEach(r -> assertThat(r.timestamp()).isEqualTo(serde.deserialize(topic, r.value()).ts()));
        return records.stream().map(r -> serde.deserialize(topic, r.value())).toList();
    }

    @Test
    void shouldPublishTheNodesMapOnlyWhenItChangesAndKeepItWhileTheKubeletIsAway() throws Exception {
        String bootstrap = SharedKafka.bootstrapServers();
        String topic = SharedKafka.uniqueTopic("pod-devices");
        SharedKafka.createTopics(bootstrap, 1, topic);
        Path socket = dir.resolve("kubelet.sock");
        try (FakeKubelet kubelet = new FakeKubelet(socket).start();
             KafkaSampleSink sink = sink(bootstrap);
             PodDeviceReporter reporter = new PodDeviceReporter(
                     PodResourcesClient.forSocket(socket, Duration.ofSeconds(5)),
                     new DeviceAttribution(dir, Set.of("aliyun/erdma"), Set.of("rdma/hca"), Set.of(), null,
                             registry),
                     "node-a", topic, REPUBLISH, sink, clock, registry)) {
            kubelet.answer(pod("train", "bert-master-0", held("aliyun/erdma", "erdma_0/17")));
            assertThat(reporter.poll()).isNotNull();
            now.addAndGet(10_000);
            reporter.poll();                                  // unchanged: nothing new

            kubelet.answer(pod("train", "bert-master-0", held("aliyun/erdma", "erdma_0/17")),
                    pod("train", "bert-worker-0", held("aliyun/erdma", "erdma_1/4")));
            now.addAndGet(10_000);
            reporter.poll();                                  // a second pod: published

            kubelet.fail(Status.UNAVAILABLE.withDescription("kubelet restarting"));
            now.addAndGet(10_000);
            assertThat(reporter.poll()).isNull();             // an error is not an empty node
            kubelet.fail(null);
            kubelet.stop();
            now.addAndGet(10_000);
            assertThat(reporter.poll()).isNull();             // socket gone: same

            kubelet.answer();                                 // back, and the job is gone
            kubelet.start();
            now.addAndGet(10_000);
            // the channel reconnects with a backoff: the next rounds fail until it is connected again
            await().atMost(Duration.ofSeconds(30)).until(() -> reporter.poll() != null);
            now.addAndGet(REPUBLISH.toMillis());
            reporter.poll();                                  // unchanged but due again
            await().atMost(Duration.ofSeconds(30)).until(() -> TopicContent.readAll(bootstrap, topic).size() == 4);
        }

        long t0 = 1_700_000_000_000L;
        PodDevices master = new PodDevices("train", "bert-master-0", List.of("erdma_0"), false, List.of());
        PodDevices worker = new PodDevices("train", "bert-worker-0", List.of("erdma_1"), false, List.of());
        assertThat(read(bootstrap, topic)).containsExactly(
                new PodDeviceMap(1, "node-a", t0, List.of(master)),
                new PodDeviceMap(1, "node-a", t0 + 20_000, List.of(master, worker)),
                new PodDeviceMap(1, "node-a", t0 + 50_000, List.of()),
                new PodDeviceMap(1, "node-a", t0 + 50_000 + REPUBLISH.toMillis(), List.of()));
        assertThat(registry.get("rdmamon.podresources.list.failures").counter().count()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void shouldPublishOnItsOwnScheduleWhenStartedOnAKubernetesNode() throws Exception {
        String bootstrap = SharedKafka.bootstrapServers();
        String topic = SharedKafka.uniqueTopic("pod-devices-scheduled");
        SharedKafka.createTopics(bootstrap, 1, topic);
        Path socket = dir.resolve("kubelet.sock");
        PodResourcesConfig config = new PodResourcesConfig(Map.of(
                PodResourcesConfig.SOCKET_CONFIG, socket.toString(),
                PodResourcesConfig.TOPIC_CONFIG, topic));
        try (FakeKubelet kubelet = new FakeKubelet(socket).start();
             KafkaSampleSink sink = sink(bootstrap)) {
            kubelet.answer(pod("train", "bert-master-0", held("aliyun/erdma", "erdma_0/1")));
            PodDeviceReporter reporter = PodDeviceReporter.startIfAvailable(config, "node-a", dir, sink, registry);
            assertThat(reporter).isNotNull();
            try (reporter) {
                await().atMost(Duration.ofSeconds(30)).until(() -> !TopicContent.readAll(bootstrap, topic).isEmpty());
            }
        }
        assertThat(read(bootstrap, topic).get(0).pods()).containsExactly(
                new PodDevices("train", "bert-master-0", List.of("erdma_0"), false, List.of()));
    }

    @Test
    void shouldStayOffWhenTheNodeHasNoKubeletSocket() {
        Path missing = dir.resolve("no-kubelet/kubelet.sock");
        PodResourcesConfig config = new PodResourcesConfig(Map.of(PodResourcesConfig.SOCKET_CONFIG, missing.toString()));
        PodResourcesConfig off = new PodResourcesConfig(Map.of(PodResourcesConfig.SOCKET_CONFIG, ""));

        assertThat(Files.exists(missing)).isFalse();
        assertThat(PodDeviceReporter.startIfAvailable(config, "node-a", dir, null, registry)).isNull();
        assertThat(PodDeviceReporter.startIfAvailable(off, "node-a", dir, null, registry)).isNull();
    }
}
