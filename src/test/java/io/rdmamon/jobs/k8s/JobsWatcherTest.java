package io.rdmamon.jobs.k8s;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.Json;
import io.rdmamon.model.NodeRecord;
import io.rdmamon.model.RecordParser;
import io.rdmamon.testing.TopicContent;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import io.rdmamon.model.PodDeviceMap;
import io.rdmamon.model.PodDeviceMap.PodDevices;
import io.rdmamon.testing.SharedKafka;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.rdmamon.jobs.k8s.JobsTopic.state;
import static io.rdmamon.jobs.k8s.TrainingPods.START_MS;
import static io.rdmamon.jobs.k8s.TrainingPods.crashLooping;
import static io.rdmamon.jobs.k8s.TrainingPods.finished;
import static io.rdmamon.jobs.k8s.TrainingPods.pytorch;
import static io.rdmamon.jobs.k8s.TrainingPods.running;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/** The watcher against fabric8's mock API server (CRUD mode) and the real in-JVM broker. */
@EnableKubernetesMockClient(crud = true)
class JobsWatcherTest {
    private static final String NS = "train";

    KubernetesClient client;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<JobsWatcher> watchers = new ArrayList<>();
    private String bootstrap;
    private JobsTopic jobs;
    private String devicesTopic;
    private final Map<String, Object> extraSettings = new HashMap<>();

    @BeforeEach
    void topics() {
        bootstrap = SharedKafka.bootstrapServers();
        String topic = SharedKafka.uniqueTopic("jobs");
        devicesTopic = SharedKafka.uniqueTopic("pod-devices");
        // one partition: records of different jobs keep the order they were sent in
        SharedKafka.createTopics(bootstrap, 1, topic, devicesTopic);
        jobs = new JobsTopic(bootstrap, topic);
    }

    @AfterEach
    void stop() {
        watchers.forEach(JobsWatcher::close);
    }

    private JobsWatcher startWatcher() throws Exception {
        Map<String, Object> settings = new HashMap<>();
        settings.put("kafka.bootstrap.servers", bootstrap);
        settings.put(JobsWatchConfig.TOPIC_CONFIG, jobs.topic());
        settings.put(JobsWatchConfig.POD_DEVICES_TOPIC_CONFIG, devicesTopic);
        settings.put(JobsWatchConfig.JOB_LABEL_CONFIG, "rdmamon.io/job");
        // a topic that does not exist: no node records, unless a test gives one
        settings.put(JobsWatchConfig.NODES_TOPIC_CONFIG, SharedKafka.uniqueTopic("no-nodes"));
        settings.putAll(extraSettings);
        JobsWatcher watcher = JobsWatcher.start(new JobsWatchConfig(settings), client, registry);
        watchers.add(watcher);
        return watcher;
    }

    private void apply(Pod pod) {
        client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).createOr(p -> p.update());
    }

    private void delete(Pod pod) {
        client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName()).delete();
    }

    /** A 3-rank PyTorchJob: master-0 on node-a, worker-0 on node-b, worker-1 on node-c. */
    private static List<Pod> bert(String uid) {
        return List.of(pytorch(NS, "bert", uid, "master", 0, "node-a"),
                pytorch(NS, "bert", uid, "worker", 0, "node-b"),
                pytorch(NS, "bert", uid, "worker", 1, "node-c"));
    }

    /**
     * Waits until the watcher has handled everything done before this call: a job created now is published after
     * all earlier events, because one thread publishes in event order (to a one-partition topic).
     */
    private void barrier() {
        String name = "barrier-" + UUID.randomUUID().toString().substring(0, 8);
        apply(new PodBuilder().withNewMetadata().withNamespace("ops").withName(name)
                .withLabels(Map.of("rdmamon.io/job", name)).endMetadata().build());
        jobs.awaitLatest(JobUid.nameBased(PodClassifier.LABEL, "ops", name), state(JobRecord.PENDING));
    }

    @Test
    void shouldPublishOneRecordPerChangeWhenAPyTorchJobStartsRestartsFailsAndGoesAway() throws Exception {
        String uid = UUID.randomUUID().toString();
        List<Pod> pods = bert(uid);
        pods.forEach(this::apply);
        startWatcher();

        JobRecord pending = jobs.awaitLatest(uid, state(JobRecord.PENDING));
        assertThat(pending.v()).isEqualTo(1);
        assertThat(pending.job()).isEqualTo("bert");
        assertThat(pending.namespace()).isEqualTo(NS);
        assertThat(pending.startedAt()).isEqualTo(START_MS);
        assertThat(pending.worldSize()).isEqualTo(3);
        assertThat(pending.ranks()).containsExactly(
                new JobRecord.Rank(0, "bert-master-0", "node-a", List.of()),
                new JobRecord.Rank(1, "bert-worker-0", "node-b", List.of()),
                new JobRecord.Rank(2, "bert-worker-1", "node-c", List.of()));
        assertThat(pending.labels()).containsEntry("release", "bert")
                .containsEntry("training.kubeflow.org/job-name", "bert")
                .containsEntry(JobAssembler.FRAMEWORK_LABEL, "kubeflow")
                .containsEntry(JobAssembler.RESTARTS_LABEL, "0")
                .doesNotContainKey("training.kubeflow.org/replica-index");

        pods.forEach(p -> apply(running(p, 0)));
        jobs.awaitLatest(uid, state(JobRecord.RUNNING));

        apply(crashLooping(pods.get(2), 1));
        jobs.awaitLatest(uid, j -> j.state().equals(JobRecord.PENDING) && j.labels().get("rdmamon.io/restarts").equals("1"));
        apply(running(pods.get(2), 1));
        jobs.awaitLatest(uid, state(JobRecord.RUNNING));

        apply(finished(pods.get(1), "Failed"));
        jobs.awaitLatest(uid, state(JobRecord.FAILED));
        delete(pods.get(0));                          // the operator's cleanPodPolicy removes the running pods
        // one deletion at a time: two deletions the watcher sees together are one change, and one record
        jobs.awaitLatest(uid, j -> j.ranks().size() == 2);
        delete(pods.get(2));
        jobs.awaitLatest(uid, j -> j.ranks().size() == 1);
        delete(pods.get(1));
        jobs.awaitLatest(uid, state(JobRecord.DELETED));
        barrier();

        List<JobRecord> records = jobs.of(uid);
        assertThat(records).extracting(JobRecord::state, j -> j.ranks().size(), j -> j.labels().get("rdmamon.io/restarts"))
                .containsExactly(
                        tuple("Pending", 3, "0"), tuple("Running", 3, "0"),
                        tuple("Pending", 3, "1"), tuple("Running", 3, "1"),
                        tuple("Failed", 3, "1"), tuple("Failed", 2, "1"), tuple("Failed", 1, "0"),
                        tuple("Deleted", 0, "0"));
        // the failed worker keeps its rank and the job its size while the others are already gone
        assertThat(records.get(6).ranks()).containsExactly(new JobRecord.Rank(1, "bert-worker-0", "node-b", List.of()));
        assertThat(records.get(6).worldSize()).isEqualTo(3);
        assertThat(records).extracting(JobRecord::updatedAt).isSorted().doesNotHaveDuplicates();
        assertThat(registry.get("rdmamon.jobs.published").tag("state", "Deleted").counter().count()).isGreaterThanOrEqualTo(1);
    }

    /** Pod device maps carry epoch-ms times like any record (the contract refuses a time before 2001). */
    private static final long MAPS_T0 = 1_767_225_600_000L;

    @Test
    void shouldFillRankDevicesAndGpusFromTheCollectorsPodDeviceMapsWhenTheyChange() throws Exception {
        String uid = UUID.randomUUID().toString();
        List<Pod> pods = bert(uid);
        pods.forEach(p -> apply(running(p, 0)));
        publishDevices(new PodDeviceMap(1, "node-a", MAPS_T0, List.of(
                new PodDevices(NS, "bert-master-0", List.of("erdma_0"), false, List.of(),
                        List.of("GPU-74f94dfb-ad46-d469-fbb0-c0b2e470c1d7", "GPU-fa2badef-49a9-1483-88ed-34afc018aeb1")),
                new PodDevices("other", "bert-master-0", List.of("erdma_1"), false, List.of()))));
        publishDevices(new PodDeviceMap(1, "node-b", MAPS_T0, List.of(
                new PodDevices(NS, "bert-worker-0", List.of("erdma_0", "erdma_1"), false, List.of()))));
        startWatcher();

        JobRecord first = jobs.awaitLatest(uid, state(JobRecord.RUNNING));
        assertThat(first.ranks()).extracting(JobRecord.Rank::devices)
                .containsExactly(List.of("erdma_0"), List.of("erdma_0", "erdma_1"), List.of());
        // the kubelet's nvidia.com/gpu ids; a rank whose pod lists none holds every GPU of its node (left out)
        assertThat(first.ranks()).extracting(JobRecord.Rank::gpus).containsExactly(
                List.of("GPU-74f94dfb-ad46-d469-fbb0-c0b2e470c1d7", "GPU-fa2badef-49a9-1483-88ed-34afc018aeb1"),
                List.of(), List.of());
        assertThat(Json.toString(first.ranks().get(0))).contains("\"gpus\":[\"GPU-74f94dfb");
        assertThat(Json.toString(first.ranks().get(1))).doesNotContain("gpus");
        assertThat(first.labels()).doesNotContainKey(JobAssembler.SHARED_LABEL);

        // node-c's collector starts reporting: worker-1 holds a shared rdma/hca device
        publishDevices(new PodDeviceMap(1, "node-c", MAPS_T0 + 1_000, List.of(
                new PodDevices(NS, "bert-worker-1", List.of("mlx5_0"), true, List.of()))));
        JobRecord second = jobs.awaitLatest(uid, j -> !j.ranks().get(2).devices().isEmpty());
        assertThat(second.ranks().get(2).devices()).containsExactly("mlx5_0");
        assertThat(second.labels()).containsEntry(JobAssembler.SHARED_LABEL, "true");

        publishDevices(new PodDeviceMap(1, "node-c", MAPS_T0 + 2_000, List.of(
                new PodDevices(NS, "bert-worker-1", List.of("mlx5_0"), true, List.of()))));   // same map again
        barrier();
        assertThat(jobs.of(uid)).hasSize(2);
    }

    private void applyNode(String name, String instanceType) {
        Node node = new NodeBuilder().withNewMetadata().withName(name)
                .withLabels(instanceType == null ? Map.of("kubernetes.io/hostname", name)
                        : Map.of("kubernetes.io/hostname", name, "node.kubernetes.io/instance-type", instanceType))
                .endMetadata().withNewStatus().addNewImage().withNames("registry/pytorch:2.3").endImage().endStatus()
                .build();
        client.nodes().resource(node).createOr(n -> n.update());
    }

    @Test
    void shouldPutEachNodesInstanceTypeOnItsRanksAndRepublishWhenTheLabelChanges() throws Exception {
        applyNode("node-a", "ecs.ebmgn7ex");
        applyNode("node-b", "ecs.ebmgn7ex");
        applyNode("node-c", null);                    // a node without the label: its rank has no instance type
        String uid = UUID.randomUUID().toString();
        bert(uid).forEach(p -> apply(running(p, 0)));
        startWatcher();

        JobRecord first = jobs.awaitLatest(uid, state(JobRecord.RUNNING));
        assertThat(first.ranks()).extracting(JobRecord.Rank::node, JobRecord.Rank::instanceType).containsExactly(
                tuple("node-a", "ecs.ebmgn7ex"), tuple("node-b", "ecs.ebmgn7ex"), tuple("node-c", null));
        // left out of the JSON when unknown, so records of nodes without the label read as before
        assertThat(Json.toString(first.ranks().get(2))).doesNotContain("instanceType");
        // only ranks monitored in their pod (ACS) carry a virtual node
        assertThat(first.ranks()).allSatisfy(r -> assertThat(r.virtualNode()).isNull());
        assertThat(Json.toString(first.ranks().get(0))).doesNotContain("virtualNode");
        assertThat(Json.toString(first.ranks().get(0))).contains("\"instanceType\":\"ecs.ebmgn7ex\"");

        applyNode("node-c", "ecs.gn7i-c32g1.32xlarge");
        JobRecord relabelled = jobs.awaitLatest(uid, j -> j.ranks().get(2).instanceType() != null);
        assertThat(relabelled.ranks().get(2).instanceType()).isEqualTo("ecs.gn7i-c32g1.32xlarge");
        barrier();
        assertThat(jobs.of(uid)).hasSize(2);
    }

    @Test
    void shouldWatchNoNodesWhenTheInstanceTypeLabelIsEmpty() throws Exception {
        applyNode("node-a", "ecs.ebmgn7ex");
        String uid = UUID.randomUUID().toString();
        bert(uid).forEach(p -> apply(running(p, 0)));
        extraSettings.put(JobsWatchConfig.INSTANCE_TYPE_LABEL_CONFIG, "");
        startWatcher();

        assertThat(jobs.awaitLatest(uid, state(JobRecord.RUNNING)).ranks())
                .allSatisfy(r -> assertThat(r.instanceType()).isNull());
    }

    /**
     * The autoscaler deletes a Node (scale-in, a reclaimed spot instance): Deleted on the nodes topic, Present when it
     * comes back; a node deleted while the watcher was down is published at its restart, and nothing else repeated.
     */
    @Test
    void shouldPublishNodesThatLeaveAndComeBack() throws Exception {
        String nodesTopic = SharedKafka.uniqueTopic("nodes");
        SharedKafka.createTopics(bootstrap, 1, nodesTopic);
        extraSettings.put(JobsWatchConfig.NODES_TOPIC_CONFIG, nodesTopic);
        applyNode("node-a", "ecs.ebmgn7ex");
        applyNode("node-b", "ecs.ebmgn7ex");
        JobsWatcher first = startWatcher();
        awaitNodes(nodesTopic, Map.of("node-a", List.of(NodeRecord.PRESENT), "node-b", List.of(NodeRecord.PRESENT)));

        client.nodes().withName("node-b").delete();
        awaitNodes(nodesTopic, Map.of("node-a", List.of(NodeRecord.PRESENT),
                "node-b", List.of(NodeRecord.PRESENT, NodeRecord.DELETED)));
        applyNode("node-b", "ecs.ebmgn7ex");
        awaitNodes(nodesTopic, Map.of("node-a", List.of(NodeRecord.PRESENT),
                "node-b", List.of(NodeRecord.PRESENT, NodeRecord.DELETED, NodeRecord.PRESENT)));

        first.close();
        client.nodes().withName("node-a").delete();
        startWatcher();
        awaitNodes(nodesTopic, Map.of("node-a", List.of(NodeRecord.PRESENT, NodeRecord.DELETED),
                "node-b", List.of(NodeRecord.PRESENT, NodeRecord.DELETED, NodeRecord.PRESENT)));
    }

    /** Waits until the nodes topic holds exactly these states per node, in order; checks key, timestamp, header. */
    private void awaitNodes(String topic, Map<String, List<String>> expected) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300)).untilAsserted(() -> {
            Map<String, List<String>> states = new HashMap<>();
            for (ConsumerRecord<String, byte[]> r : TopicContent.readAll(bootstrap, topic)) {
                NodeRecord node = RecordParser.NODE.parse(r.value(), r.timestamp()).value();
                assertThat(node).isNotNull();
                assertThat(r.key()).isEqualTo(node.node());
                assertThat(r.timestamp()).isEqualTo(node.at());
                assertThat(PublishedJobs.ours(r)).isTrue();
                states.computeIfAbsent(node.node(), n -> new ArrayList<>()).add(node.state());
            }
            assertThat(states).isEqualTo(expected);
        });
    }

    private void publishDevices(PodDeviceMap map) {
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap),
                new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(devicesTopic, null, map.ts(), map.node(), Json.toBytes(map)));
        }
    }

    @Test
    void shouldRepeatNothingAndLeaveNoStaleJobWhenRestartedAfterChangesItMissed() throws Exception {
        String keptUid = UUID.randomUUID().toString();
        String goneUid = UUID.randomUUID().toString();
        String newUid = UUID.randomUUID().toString();
        List<Pod> kept = bert(keptUid);
        List<Pod> gone = List.of(pytorch(NS, "gpt", goneUid, "worker", 0, "node-d"),
                pytorch(NS, "gpt", goneUid, "worker", 1, "node-e"));
        kept.forEach(p -> apply(running(p, 0)));
        gone.forEach(p -> apply(running(p, 0)));
        JobsWatcher first = startWatcher();
        jobs.awaitLatest(keptUid, state(JobRecord.RUNNING));
        jobs.awaitLatest(goneUid, state(JobRecord.RUNNING));
        first.close();

        gone.forEach(this::delete);                       // while no watcher runs
        apply(pytorch(NS, "t5", newUid, "master", 0, "node-f"));
        startWatcher();

        jobs.awaitLatest(goneUid, state(JobRecord.DELETED));
        jobs.awaitLatest(newUid, state(JobRecord.PENDING));
        barrier();
        assertThat(jobs.of(keptUid)).extracting(JobRecord::state).containsExactly("Running");
        assertThat(jobs.of(goneUid)).extracting(JobRecord::state).containsExactly("Running", "Deleted");
        assertThat(jobs.of(newUid)).extracting(JobRecord::state).containsExactly("Pending");
    }

    @Test
    void shouldDropARankWhenItsPodLosesTheTrainingLabelsAndIgnoreOrdinaryPods() throws Exception {
        String uid = UUID.randomUUID().toString();
        List<Pod> pods = bert(uid);
        pods.forEach(p -> apply(running(p, 0)));
        Pod exporter = new PodBuilder().withNewMetadata().withNamespace("kube-system").withName("exporter-node-a")
                .withLabels(Map.of("app", "exporter")).endMetadata().withNewSpec().withNodeName("node-a").endSpec()
                .build();
        apply(exporter);
        startWatcher();
        jobs.awaitLatest(uid, j -> j.state().equals(JobRecord.RUNNING) && j.ranks().size() == 3);

        // the informer keeps only training pods: an ordinary pod's events must still reach nothing
        apply(new PodBuilder(exporter).editMetadata().addToLabels("version", "2").endMetadata().build());
        delete(exporter);
        // worker-1 taken out of the job by hand (a debugging session): the job goes on with two ranks
        Pod worker = running(pods.get(2), 0);
        apply(new PodBuilder(worker).editMetadata().withLabels(Map.of("app", "debug")).endMetadata().build());
        jobs.awaitLatest(uid, j -> j.ranks().size() == 2);
        barrier();

        assertThat(jobs.of(uid)).extracting(j -> j.ranks().size()).containsExactly(3, 2);
        assertThat(jobs.all()).extracting(JobRecord::namespace).doesNotContain("kube-system");
    }
}
