package io.rdmamon.jobs.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.jobs.SocketPorts;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.Json;
import io.rdmamon.model.PodDeviceMap;
import io.rdmamon.model.PodDeviceMap.PodDevices;
import io.rdmamon.testing.SharedKafka;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.rdmamon.jobs.k8s.JobsTopic.state;
import static io.rdmamon.jobs.k8s.TrainingPods.pytorch;
import static io.rdmamon.jobs.k8s.TrainingPods.running;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * ACS serverless GPU pods (Alibaba Cloud Container Compute Service) against fabric8's mock API server and the real
 * in-JVM broker, with the default settings: PyTorchJob pods labelled as ACS labels them, all on one virtual-kubelet
 * node, each with a collector inside that publishes its own pod device map under the pod's identity.
 */
@EnableKubernetesMockClient(crud = true)
class AcsJobsWatcherTest {
    private static final String NS = "train";
    private static final String VIRTUAL_NODE = "virtual-kubelet-cn-wulanchabu-c";
    private static final long MAPS_T0 = 1_767_225_600_000L;

    KubernetesClient client;

    private JobsWatcher watcher;

    @AfterEach
    void stop() {
        if (watcher != null) {
            watcher.close();
        }
    }

    /** A PyTorchJob pod as ACS runs it: compute-class gpu, hpn-type rdma, the GPU model; on the virtual node. */
    private static Pod acs(String job, String uid, String type, int index, String model, Map<String, String> notes) {
        Pod pod = pytorch(NS, job, uid, type, index, VIRTUAL_NODE);
        Map<String, String> labels = new HashMap<>(pod.getMetadata().getLabels());
        labels.put("alibabacloud.com/compute-class", "gpu");
        labels.put("alibabacloud.com/hpn-type", "rdma");
        labels.put("alibabacloud.com/gpu-model-series", model);
        return running(new PodBuilder(pod).editMetadata().withLabels(labels).withAnnotations(notes).endMetadata()
                .build(), 0);
    }

    @Test
    void shouldNameAcsRanksAfterTheirPodsAndReadSocketJobsFromTheInterfaceNcclUses() throws Exception {
        String bootstrap = SharedKafka.bootstrapServers();
        String jobsTopic = SharedKafka.uniqueTopic("jobs");
        String devicesTopic = SharedKafka.uniqueTopic("pod-devices");
        SharedKafka.createTopics(bootstrap, 1, jobsTopic, devicesTopic);
        JobsTopic jobs = new JobsTopic(bootstrap, jobsTopic);
        String gu8 = UUID.randomUUID().toString();
        String p16 = UUID.randomUUID().toString();
        String hpn = UUID.randomUUID().toString();
        List<Pod> pods = List.of(
                acs("llm", gu8, "master", 0, "GU8TF", Map.of()), acs("llm", gu8, "worker", 0, "GU8TF", Map.of()),
                acs("sft", p16, "master", 0, "P16EN", Map.of()), acs("sft", p16, "worker", 0, "P16EN", Map.of()),
                // a job that says for itself: sockets, over hpn0
                acs("eval", hpn, "master", 0, "GU8TF", Map.of(PlatformRules.TRANSPORT_ANNOTATION, "socket",
                        PlatformRules.INTERFACE_ANNOTATION, "hpn0")));
        pods.forEach(p -> client.pods().inNamespace(NS).resource(p).create());
        // each pod's own collector: GU8TF pods see their mlx5 devices and their own GPU, a P16EN pod an RDMA device
        // NCCL leaves idle
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap),
                new StringSerializer(), new ByteArraySerializer())) {
            for (Pod p : pods) {
                String name = p.getMetadata().getName();
                String node = NS + "." + name;
                List<String> devices = name.startsWith("sft") ? List.of("mlx5_0") : List.of("mlx5_0", "mlx5_1");
                PodDeviceMap map = new PodDeviceMap(1, node, MAPS_T0, List.of(
                        new PodDevices(NS, name, devices, false, List.of(), List.of("GPU-of-" + name))));
                producer.send(new ProducerRecord<>(devicesTopic, null, map.ts(), node, Json.toBytes(map)));
            }
        }
        watcher = JobsWatcher.start(new JobsWatchConfig(Map.of("kafka.bootstrap.servers", bootstrap,
                JobsWatchConfig.TOPIC_CONFIG, jobsTopic, JobsWatchConfig.POD_DEVICES_TOPIC_CONFIG, devicesTopic,
                JobsWatchConfig.NODES_TOPIC_CONFIG, SharedKafka.uniqueTopic("no-nodes"))),
                client, new SimpleMeterRegistry());

        JobRecord rdma = jobs.awaitLatest(gu8, j -> state(JobRecord.RUNNING).test(j)
                && j.ranks().stream().allMatch(r -> !r.devices().isEmpty()));
        assertThat(rdma.ranks()).containsExactly(
                new JobRecord.Rank(0, "llm-master-0", "train.llm-master-0", List.of("mlx5_0", "mlx5_1"), "GU8TF",
                        VIRTUAL_NODE, List.of("GPU-of-llm-master-0")),
                new JobRecord.Rank(1, "llm-worker-0", "train.llm-worker-0", List.of("mlx5_0", "mlx5_1"), "GU8TF",
                        VIRTUAL_NODE, List.of("GPU-of-llm-worker-0")));
        // the virtual node is kept on the record for the operator, as an optional field of the rank
        assertThat(Json.toString(rdma.ranks().get(0))).contains("\"virtualNode\":\"" + VIRTUAL_NODE + "\"");
        assertThat(rdma.labels()).doesNotContainKey(SocketPorts.TRANSPORT_LABEL)
                .containsEntry("alibabacloud.com/hpn-type", "rdma");

        JobRecord socket = jobs.awaitLatest(p16, state(JobRecord.RUNNING));
        assertThat(socket.ranks()).containsExactly(
                new JobRecord.Rank(0, "sft-master-0", "train.sft-master-0", List.of("eth0"), "P16EN", VIRTUAL_NODE,
                        List.of("GPU-of-sft-master-0")),
                new JobRecord.Rank(1, "sft-worker-0", "train.sft-worker-0", List.of("eth0"), "P16EN", VIRTUAL_NODE,
                        List.of("GPU-of-sft-worker-0")));
        assertThat(socket.labels()).containsEntry(SocketPorts.TRANSPORT_LABEL, SocketPorts.SOURCE);

        JobRecord annotated = jobs.awaitLatest(hpn, state(JobRecord.RUNNING));
        assertThat(annotated.ranks()).singleElement().satisfies(r -> {
            assertThat(r.node()).isEqualTo("train.eval-master-0");
            assertThat(r.devices()).containsExactly("hpn0");
        });
        assertThat(annotated.labels()).containsEntry(SocketPorts.TRANSPORT_LABEL, SocketPorts.SOURCE);
    }
}
