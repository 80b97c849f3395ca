package io.rdmamon.jobs.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.model.JobRecord;
import io.rdmamon.testing.SharedKafka;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.rdmamon.jobs.k8s.JobsTopic.state;
import static io.rdmamon.jobs.k8s.TrainingPods.pytorch;
import static io.rdmamon.jobs.k8s.TrainingPods.running;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The API server goes away while the watcher runs, pods change meanwhile, and the API server that comes back no
 * longer knows the watcher's resource version (410 Gone, as after an API server restart): the watcher must re-list,
 * publish what changed (a Deleted for the vanished job), and nothing for the unchanged job.
 */
class JobsWatcherReconnectTest {
    private static final String NS = "train";

    /**
     * The cluster's state, served by one API server after another. When told, it answers the next watch from an old
     * resource version as a real API server does when its watch cache no longer reaches back that far: the watch
     * opens, and its first event is an ERROR with status 410 Expired. Only the pod watch: the watcher's node watch
     * (instance types) reconnects too, and must not take the 410 meant for the pods.
     */
    static final class ClusterState extends KubernetesCrudDispatcher {
        final AtomicBoolean forgetHistory = new AtomicBoolean();

        @Override
        public MockResponse handleWatch(String path) {
            if (path.contains("/pods") && path.contains("resourceVersion=") && forgetHistory.compareAndSet(true, false)) {
                String expired = Serialization.asJson(new WatchEvent(new StatusBuilder().withStatus("Failure")
                        .withCode(410).withReason("Expired").withMessage("too old resource version").build(), "ERROR"));
                return new MockResponse().withWebSocketUpgrade(new WebSocketListener() {
                    @Override
                    public void onOpen(WebSocket webSocket, Response response) {
                        webSocket.send(expired);
                    }
                });
            }
            return super.handleWatch(path);
        }
    }

    private final ClusterState cluster = new ClusterState();
    private final List<KubernetesMockServer> servers = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        servers.forEach(KubernetesMockServer::destroy);
    }

    private KubernetesMockServer apiServer(int port) throws Exception {
        KubernetesMockServer server = new KubernetesMockServer(new Context(Serialization.jsonMapper()),
                new MockWebServer(), new HashMap<>(), cluster, false);
        if (port == 0) {
            server.init();
        } else {
            server.init(InetAddress.getByName(servers.get(0).getHostName()), port);
        }
        servers.add(server);
        return server;
    }

    private <T extends AutoCloseable> T closing(T closeable) {
        closeables.add(closeable);
        return closeable;
    }

    private static void apply(KubernetesClient client, Pod pod) {
        client.pods().inNamespace(NS).resource(pod).createOr(p -> p.update());
    }

    @Test
    void shouldRelistPublishTheVanishedJobsDeletionAndRepeatNothingWhenTheApiServerComesBackWithoutHistory()
            throws Exception {
        String bootstrap = SharedKafka.bootstrapServers();
        String topic = SharedKafka.uniqueTopic("jobs-reconnect");
        SharedKafka.createTopics(bootstrap, 1, topic);
        JobsTopic jobs = new JobsTopic(bootstrap, topic);
        KubernetesMockServer first = apiServer(0);
        int port = first.getPort();
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl(first.url("/"))
                .withWatchReconnectInterval(100).withRequestRetryBackoffInterval(100).build();
        KubernetesClient watcherClient = closing(new KubernetesClientBuilder().withConfig(config).build());
        KubernetesClient admin = closing(first.createClient());

        String keptUid = UUID.randomUUID().toString();
        String goneUid = UUID.randomUUID().toString();
        String newUid = UUID.randomUUID().toString();
        List<Pod> gone = List.of(pytorch(NS, "gpt", goneUid, "worker", 0, "node-d"),
                pytorch(NS, "gpt", goneUid, "worker", 1, "node-e"));
        apply(admin, running(pytorch(NS, "bert", keptUid, "master", 0, "node-a"), 0));
        gone.forEach(p -> apply(admin, running(p, 0)));
        Map<String, Object> settings = new HashMap<>();
        settings.put("kafka.bootstrap.servers", bootstrap);
        settings.put(JobsWatchConfig.TOPIC_CONFIG, topic);
        settings.put(JobsWatchConfig.POD_DEVICES_TOPIC_CONFIG, SharedKafka.uniqueTopic("no-such-topic"));
        settings.put(JobsWatchConfig.NODES_TOPIC_CONFIG, SharedKafka.uniqueTopic("no-nodes"));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        closing(JobsWatcher.start(new JobsWatchConfig(settings), watcherClient, registry));
        jobs.awaitLatest(keptUid, state(JobRecord.RUNNING));
        jobs.awaitLatest(goneUid, state(JobRecord.RUNNING));

        first.destroy();                                          // the watch drops
        await().atMost(Duration.ofSeconds(30))
                .until(() -> registry.get("rdmamon.jobs.watch.connected").gauge().value() == 0);
        KubernetesClient elsewhere = closing(apiServer(0).createClient());
        gone.forEach(p -> elsewhere.pods().inNamespace(NS).withName(p.getMetadata().getName()).delete());
        apply(elsewhere, pytorch(NS, "t5", newUid, "master", 0, "node-f"));
        cluster.forgetHistory.set(true);
        apiServer(port);                                          // back at the watcher's address

        jobs.awaitLatest(goneUid, state(JobRecord.DELETED));
        jobs.awaitLatest(newUid, state(JobRecord.PENDING));
        assertThat(cluster.forgetHistory).as("the watcher came back through a 410 and a re-list").isFalse();
        // the barrier: a job created after the re-list is published after everything the re-list caused
        String lateUid = UUID.randomUUID().toString();
        apply(elsewhere, pytorch(NS, "late", lateUid, "master", 0, "node-g"));
        jobs.awaitLatest(lateUid, state(JobRecord.PENDING));
        assertThat(jobs.of(keptUid)).extracting(JobRecord::state).containsExactly("Running");
        assertThat(jobs.of(goneUid)).extracting(JobRecord::state).containsExactly("Running", "Deleted");
        assertThat(registry.get("rdmamon.jobs.watch.lists").counter().count()).as("first list and one re-list")
                .isEqualTo(2);
    }
}
