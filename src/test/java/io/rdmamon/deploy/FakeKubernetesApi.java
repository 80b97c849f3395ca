package io.rdmamon.deploy;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;

import java.net.InetAddress;
import java.util.HashMap;

/**
 * A stand-in for the Kubernetes API server that the jobs watcher's container talks to in scripts/containers-test:
 * fabric8's mock server in CRUD mode (list and watch of pods and nodes) on 127.0.0.1, plain HTTP, holding one node.
 * Usage: {@code FakeKubernetesApi PORT NODE}; prints its URL once it listens, then serves until killed.
 */
public final class FakeKubernetesApi {
    private FakeKubernetesApi() {
    }

    public static void main(String[] args) throws Exception {
        KubernetesMockServer server = new KubernetesMockServer(new Context(Serialization.jsonMapper()),
                new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        server.init(InetAddress.getByName("127.0.0.1"), Integer.parseInt(args[0]));
        try (KubernetesClient client = server.createClient()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(args[1])
                    .addToLabels("nvidia.com/gpu.present", "true").endMetadata().build()).create();
        }
        System.out.println(server.url("/"));
        Thread.currentThread().join();
    }
}
