package io.rdmamon.bench;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.rdmamon.testing.SharedKafka;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

/**
 * CPU and memory of {@code rdmamon jobs watch} on a big cluster: the watcher runs in a JVM of its own against
 * fabric8's mock API server (CRUD mode) holding the pods of {@code nodes} GPU nodes, and publishes to the in-JVM
 * broker. Not part of the test suite (the name does not end in Test); run it with
 *
 * <pre>mvn -q -B test -Dtest=JobsWatcherBenchmark -Dnodes=1000 -DotherPodsPerNode=10</pre>
 *
 * <p>and read the figures in {@code target/surefire-reports/io.rdmamon.bench.JobsWatcherBenchmark-output.txt}.
 * Training pods are PyTorchJob pods as Arena submits them (one 8-GPU pod per node, eight nodes per job), with the
 * environment, volumes, status and managed fields a real API server sends; the other pods are the daemon-set pods
 * every node runs. The informer caches every pod it is sent, so both kinds count, unless a label selector
 * ({@code -Dselector=training.kubeflow.org/job-name}) keeps the others on the API server.
 */
class JobsWatcherBenchmark {
    private static final String NS = "train";
    private static final String SYSTEM_NS = "kube-system";

    @TempDir
    Path work;

    @Test
    void footprint() throws Exception {
        int nodes = Integer.getInteger("nodes", 1000);
        int nodesPerJob = Integer.getInteger("nodesPerJob", 8);
        int otherPodsPerNode = Integer.getInteger("otherPodsPerNode", 10);
        int churnPerSecond = Integer.getInteger("churnPerSecond", 20);
        int churnSeconds = Integer.getInteger("churnSeconds", 120);
        String selector = System.getProperty("selector", "");
        String heap = System.getProperty("heap", "576m");
        int jobs = nodes / nodesPerJob;

        KubernetesMockServer server = new KubernetesMockServer(new Context(Serialization.jsonMapper()),
                new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        server.init();
        try (KubernetesClient client = server.createClient()) {
            List<Pod> training = new ArrayList<>();
            List<Pod> others = new ArrayList<>();
            for (int j = 0; j < jobs; j++) {
                for (int r = 0; r < nodesPerJob; r++) {
                    training.add(trainingPod(j, r, nodesPerJob, "gpu-node-" + (j * nodesPerJob + r)));
                }
            }
            for (int n = 0; n < nodes; n++) {
                for (int d = 0; d < otherPodsPerNode; d++) {
                    others.add(daemonPod(d, "gpu-node-" + n));
                }
            }
            long started = System.nanoTime();
            createAll(client, training);
            createAll(client, others);
            System.out.printf("cluster: %,d nodes, %,d jobs, %,d training pods (%,d B of JSON each), %,d other pods "
                            + "(%,d B each); created in %.0f s%n", nodes, jobs, training.size(),
                    jsonBytes(training.get(1)), others.size(), others.isEmpty() ? 0 : jsonBytes(others.get(0)),
                    seconds(started));

            String bootstrap = SharedKafka.bootstrapServers();
            String topic = SharedKafka.uniqueTopic("jobs-bench");
            String devices = SharedKafka.uniqueTopic("pod-devices-bench");
            SharedKafka.createTopics(bootstrap, 6, topic, devices);
            List<String> args = new ArrayList<>(List.of("jobs", "watch", "--bootstrap-servers", bootstrap,
                    "--set", "jobs.topic=" + topic, "--set", "jobs.pod.devices.topic=" + devices,
                    "--set", "metrics.port=-1"));
            if (!selector.isEmpty()) {
                args.addAll(List.of("--selector", selector));
            }
            Map<String, String> env = Map.of("KUBERNETES_MASTER", client.getMasterUrl().toString(),
                    "KUBERNETES_AUTH_TRYKUBECONFIG", "false", "KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false",
                    "KUBERNETES_TRUST_CERTIFICATES", "true");
            try (JobsTopicCount published = new JobsTopicCount(bootstrap, topic);
                 ChildJvm watcher = ChildJvm.start(heap, work.resolve("jobs-watch.log"), args, env)) {
                long start = System.nanoTime();
                while (published.jobs() < jobs) {
                    watcher.checkAlive();
                    published.poll();
                    if (seconds(start) > 600) {
                        throw new IllegalStateException("only " + published.jobs() + " of " + jobs + " jobs in 10 min");
                    }
                }
                double startCpu = watcher.cpuSeconds();
                System.out.printf("jobs watch, start: all %,d jobs published %.1f s after the JVM started, %,d "
                        + "records; %.1f CPU s (JVM start, list, first publish)%n", jobs, seconds(start),
                        published.records(), startCpu);
                report(watcher, "after the first list");

                // the JIT is still compiling what the first list ran: let it finish before idle is measured
                pollFor(published, 30);
                double idleCpu = watcher.cpuSeconds();
                long idleStart = System.nanoTime();
                pollFor(published, 30);
                System.out.printf("jobs watch, idle: %.3f CPU cores on average over 30 s without pod changes%n",
                        (watcher.cpuSeconds() - idleCpu) / seconds(idleStart));

                Random random = new Random(1);
                long events = 0;
                double cpuBefore = watcher.cpuSeconds();
                long recordsBefore = published.records();
                long churnStart = System.nanoTime();
                for (int s = 0; s < churnSeconds; s++) {
                    long secondStart = System.nanoTime();
                    for (int i = 0; i < churnPerSecond; i++) {
                        int at = random.nextInt(training.size());
                        Pod restarted = restarted(training.get(at));
                        training.set(at, restarted);
                        client.pods().inNamespace(NS).resource(restarted).update();
                        events++;
                    }
                    while (System.nanoTime() - secondStart < 1_000_000_000L) {
                        published.poll();
                    }
                }
                // updates of one job's pods close together are one change and one record: wait for quiet instead
                long lastRecords = -1;
                long quietSince = System.nanoTime();
                while (seconds(quietSince) < 3) {
                    published.poll();
                    if (published.records() != lastRecords) {
                        lastRecords = published.records();
                        quietSince = System.nanoTime();
                    }
                }
                double churnCpu = watcher.cpuSeconds() - cpuBefore;
                System.out.printf("jobs watch, churn: %,d pod updates in %d s (%d/s), %,d job records published; "
                                + "%.3f CPU cores on average, %.2f CPU ms per pod update%n", events, churnSeconds,
                        churnPerSecond, published.records() - recordsBefore, churnCpu / seconds(churnStart),
                        churnCpu * 1000 / events);
                report(watcher, "after the churn");
            }
        } finally {
            server.destroy();
        }
    }

    private static void pollFor(JobsTopicCount published, int seconds) {
        long start = System.nanoTime();
        while (seconds(start) < seconds) {
            published.poll();
        }
    }

    private static void report(ChildJvm watcher, String when) throws Exception {
        long live = watcher.liveHeapBytes();
        ChildJvm.Resident resident = watcher.residentBytes();
        System.out.printf("jobs watch, memory %s: live heap after full GC %,d MiB; resident %,d MiB (peak %,d MiB)%n",
                when, live >> 20, resident.now() >> 20, resident.peak() >> 20);
    }

    private static void createAll(KubernetesClient client, List<Pod> pods) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (List<Pod> slice : slices(pods, 8)) {
                done.add(pool.submit(() -> slice.forEach(p ->
                        client.pods().inNamespace(p.getMetadata().getNamespace()).resource(p).create())));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
    }

    private static List<List<Pod>> slices(List<Pod> pods, int n) {
        return IntStream.range(0, n).mapToObj(i -> pods.subList(pods.size() * i / n, pods.size() * (i + 1) / n))
                .toList();
    }

    private static Pod restarted(Pod pod) {
        Pod copy = Serialization.clone(pod);
        var container = copy.getStatus().getContainerStatuses().get(0);
        container.setRestartCount(container.getRestartCount() + 1);
        copy.getMetadata().setResourceVersion(null);
        return copy;
    }

    /** A worker pod of a PyTorchJob submitted with Arena: 8 GPUs and one eRDMA device on {@code node}. */
    private static Pod trainingPod(int job, int index, int worldSize, String node) {
        String name = "llm-pretrain-" + job;
        String type = index == 0 ? "master" : "worker";
        int typeIndex = index == 0 ? 0 : index - 1;
        String podName = name + "-" + type + "-" + typeIndex;
        List<EnvVar> env = new ArrayList<>();
        Map<String, String> values = new HashMap<>(Map.ofEntries(
                Map.entry("MASTER_ADDR", name + "-master-0"), Map.entry("MASTER_PORT", "23456"),
                Map.entry("WORLD_SIZE", Integer.toString(worldSize)), Map.entry("RANK", Integer.toString(index)),
                Map.entry("PYTHONUNBUFFERED", "1"), Map.entry("NCCL_DEBUG", "INFO"),
                Map.entry("NCCL_IB_HCA", "erdma_0"), Map.entry("NCCL_SOCKET_IFNAME", "eth0"),
                Map.entry("NCCL_IB_GID_INDEX", "1"), Map.entry("NCCL_IB_TIMEOUT", "22"),
                Map.entry("NCCL_NET_GDR_LEVEL", "5"), Map.entry("NCCL_ALGO", "Ring"),
                Map.entry("NVIDIA_VISIBLE_DEVICES", "all"), Map.entry("NVIDIA_DRIVER_CAPABILITIES", "compute,utility"),
                Map.entry("TORCH_DISTRIBUTED_DEBUG", "OFF"), Map.entry("OMP_NUM_THREADS", "8"),
                Map.entry("HF_HOME", "/mnt/data/hf"), Map.entry("WANDB_MODE", "offline"),
                Map.entry("ARENA_JOB_NAME", name), Map.entry("ARENA_USER", "alice")));
        values.forEach((k, v) -> env.add(new EnvVar(k, v, null)));
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace(NS).withName(podName).withUid(uuid(job * 1000 + index))
                .withResourceVersion("1").withCreationTimestamp("2026-11-01T08:00:00Z")
                .withLabels(Map.of(
                        "training.kubeflow.org/job-name", name,
                        "training.kubeflow.org/replica-type", type,
                        "training.kubeflow.org/replica-index", Integer.toString(typeIndex),
                        "training.kubeflow.org/operator-name", "pytorchjob-controller",
                        "training.kubeflow.org/job-role", index == 0 ? "master" : "",
                        "release", name, "app", "pytorchjob", "arena.kubeflow.org/uid", uuid(job)))
                .withAnnotations(Map.of("kubectl.kubernetes.io/default-container", "pytorch",
                        "arena.kubeflow.org/username", "alice",
                        "k8s.aliyun.com/eni-config", "{\"eniDevices\":1,\"rdma\":true}",
                        "requestGPUsOfJobOwner", "64"))
                .addNewOwnerReference()
                .withApiVersion("kubeflow.org/v1").withKind("PyTorchJob").withName(name).withUid(uuid(job))
                .withController(true).withBlockOwnerDeletion(true)
                .endOwnerReference()
                .withManagedFields(new ManagedFieldsEntryBuilder().withManager("pytorchjob-controller")
                        .withOperation("Update").withApiVersion("v1").withTime("2026-11-01T08:00:00Z")
                        .withFieldsType("FieldsV1").withNewFieldsV1()
                        .addToAdditionalProperties("f:metadata", Map.of("f:labels", Map.of(".", Map.of(),
                                "f:app", Map.of(), "f:release", Map.of()), "f:ownerReferences", Map.of(".", Map.of())))
                        .addToAdditionalProperties("f:spec", Map.of("f:containers", Map.of("k:{\"name\":\"pytorch\"}",
                                Map.of(".", Map.of(), "f:env", Map.of(), "f:image", Map.of(), "f:resources",
                                        Map.of()))))
                        .endFieldsV1().build(),
                        new ManagedFieldsEntryBuilder().withManager("kubelet").withOperation("Update")
                                .withApiVersion("v1").withTime("2026-11-01T08:01:00Z").withFieldsType("FieldsV1")
                                .withSubresource("status").withNewFieldsV1()
                                .addToAdditionalProperties("f:status", Map.of("f:conditions", Map.of(),
                                        "f:containerStatuses", Map.of(), "f:hostIP", Map.of(), "f:phase", Map.of(),
                                        "f:podIP", Map.of(), "f:startTime", Map.of()))
                                .endFieldsV1().build())
                .endMetadata()
                .withNewSpec()
                .withNodeName(node).withSchedulerName("default-scheduler").withRestartPolicy("Never")
                .withServiceAccountName("default").withHostNetwork(false).withDnsPolicy("ClusterFirst")
                .addToNodeSelector("node.kubernetes.io/instance-type", "ecs.ebmgn8v.48xlarge")
                .addNewToleration().withKey("nvidia.com/gpu").withOperator("Exists").withEffect("NoSchedule")
                .endToleration()
                .addNewToleration().withKey("node.kubernetes.io/not-ready").withOperator("Exists")
                .withEffect("NoExecute").withTolerationSeconds(300L).endToleration()
                .addNewContainer().withName("pytorch").withImage("registry.example.com/train/llm:2.3.1-cu121")
                .withCommand("torchrun").withArgs("--nproc_per_node=8", "--nnodes=" + worldSize, "train.py",
                        "--config=/mnt/data/configs/llm-7b.yaml")
                .withEnv(env)
                .withNewResources()
                .withRequests(Map.of("nvidia.com/gpu", new Quantity("8"), "aliyun/erdma", new Quantity("1"),
                        "cpu", new Quantity("90"), "memory", new Quantity("800Gi")))
                .withLimits(Map.of("nvidia.com/gpu", new Quantity("8"), "aliyun/erdma", new Quantity("1")))
                .endResources()
                .addNewVolumeMount().withName("dshm").withMountPath("/dev/shm").endVolumeMount()
                .addNewVolumeMount().withName("data").withMountPath("/mnt/data").endVolumeMount()
                .addNewVolumeMount().withName("kube-api-access").withMountPath(
                        "/var/run/secrets/kubernetes.io/serviceaccount").withReadOnly(true).endVolumeMount()
                .addNewPort().withName("pytorchjob-port").withContainerPort(23456).withProtocol("TCP").endPort()
                .endContainer()
                .addNewVolume().withName("dshm").withNewEmptyDir().withMedium("Memory").endEmptyDir().endVolume()
                .addNewVolume().withName("data").withNewPersistentVolumeClaim().withClaimName("training-data")
                .endPersistentVolumeClaim().endVolume()
                .addNewVolume().withName("kube-api-access").withNewProjected().withDefaultMode(420)
                .addNewSource().withNewServiceAccountToken().withPath("token").withExpirationSeconds(3607L)
                .endServiceAccountToken().endSource()
                .addNewSource().withNewConfigMap().withName("kube-root-ca.crt").addNewItem().withKey("ca.crt")
                .withPath("ca.crt").endItem().endConfigMap().endSource()
                .endProjected().endVolume()
                .endSpec()
                .withNewStatus().withPhase("Running").withHostIP("10.0.0." + (index % 250))
                .withPodIP("10.1." + job % 250 + "." + index).withStartTime("2026-11-01T08:00:30Z")
                .withQosClass("Burstable")
                .addNewCondition().withType("Initialized").withStatus("True")
                .withLastTransitionTime("2026-11-01T08:00:30Z").endCondition()
                .addNewCondition().withType("Ready").withStatus("True")
                .withLastTransitionTime("2026-11-01T08:01:00Z").endCondition()
                .addNewCondition().withType("ContainersReady").withStatus("True")
                .withLastTransitionTime("2026-11-01T08:01:00Z").endCondition()
                .addNewCondition().withType("PodScheduled").withStatus("True")
                .withLastTransitionTime("2026-11-01T08:00:29Z").endCondition()
                .addNewContainerStatus().withName("pytorch").withReady(true).withRestartCount(0).withStarted(true)
                .withImage("registry.example.com/train/llm:2.3.1-cu121")
                .withImageID("registry.example.com/train/llm@sha256:" + "0123456789abcdef".repeat(4))
                .withContainerID("containerd://" + "fedcba9876543210".repeat(4))
                .withNewState().withNewRunning().withStartedAt("2026-11-01T08:00:59Z").endRunning().endState()
                .endContainerStatus()
                .endStatus()
                .build();
    }

    /** A pod of one of the daemon sets every GPU node runs (exporters, device plugins, network agents). */
    private static Pod daemonPod(int daemonSet, String node) {
        String ds = "node-agent-" + daemonSet;
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace(SYSTEM_NS).withName(ds + "-" + node).withResourceVersion("1")
                .withCreationTimestamp("2026-10-01T08:00:00Z")
                .withLabels(Map.of("app", ds, "controller-revision-hash", "5d8f7c9b6", "pod-template-generation", "3"))
                .addNewOwnerReference().withApiVersion("apps/v1").withKind("DaemonSet").withName(ds)
                .withUid(uuid(900_000 + daemonSet)).withController(true).endOwnerReference()
                .endMetadata()
                .withNewSpec().withNodeName(node).withHostNetwork(true).withPriorityClassName("system-node-critical")
                .addNewToleration().withOperator("Exists").endToleration()
                .addNewContainer().withName(ds).withImage("registry.example.com/system/" + ds + ":v1.9.0")
                .withArgs("--node=$(NODE_NAME)", "--v=2")
                .addNewEnv().withName("NODE_NAME").withNewValueFrom().withNewFieldRef().withFieldPath("spec.nodeName")
                .endFieldRef().endValueFrom().endEnv()
                .withNewResources().withRequests(Map.of("cpu", new Quantity("50m"), "memory", new Quantity("64Mi")))
                .endResources()
                .addNewVolumeMount().withName("host-sys").withMountPath("/host/sys").withReadOnly(true)
                .endVolumeMount()
                .endContainer()
                .addNewVolume().withName("host-sys").withNewHostPath().withPath("/sys").endHostPath().endVolume()
                .endSpec()
                .withNewStatus().withPhase("Running").withHostIP("10.0.0.1").withPodIP("10.0.0.1")
                .withStartTime("2026-10-01T08:00:10Z").withQosClass("Burstable")
                .addNewCondition().withType("Ready").withStatus("True")
                .withLastTransitionTime("2026-10-01T08:00:20Z").endCondition()
                .addNewContainerStatus().withName(ds).withReady(true).withRestartCount(0)
                .withImage("registry.example.com/system/" + ds + ":v1.9.0")
                .withContainerID("containerd://" + "0123456789abcdef".repeat(4))
                .withNewState().withNewRunning().withStartedAt("2026-10-01T08:00:15Z").endRunning().endState()
                .endContainerStatus()
                .endStatus()
                .build();
    }

    private static String uuid(int n) {
        return String.format("00000000-0000-4000-8000-%012d", n);
    }

    private static int jsonBytes(Pod pod) {
        return Serialization.asJson(pod).getBytes(StandardCharsets.UTF_8).length;
    }

    private static double seconds(long sinceNanos) {
        return (System.nanoTime() - sinceNanos) / 1e9;
    }

    /** Counts the job records on the topic and the distinct jobs among them. */
    private static final class JobsTopicCount implements AutoCloseable {
        private final KafkaConsumer<String, byte[]> consumer;
        private final Set<String> uids = new HashSet<>();
        private long records;

        JobsTopicCount(String bootstrap, String topic) {
            consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                    new StringDeserializer(), new ByteArrayDeserializer());
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
        }

        void poll() {
            consumer.poll(Duration.ofMillis(100)).forEach(r -> {
                uids.add(r.key());
                records++;
            });
        }

        int jobs() {
            return uids.size();
        }

        long records() {
            return records;
        }

        @Override
        public void close() {
            consumer.close();
        }
    }
}
