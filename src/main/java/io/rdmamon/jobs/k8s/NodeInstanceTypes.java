package io.rdmamon.jobs.k8s;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.rdmamon.support.LogLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Each node's instance type (the value of one node label, by default {@code node.kubernetes.io/instance-type}), from
 * a fabric8 node informer: {@code jobs watch} puts it on each rank for the stream app's expected NIC bandwidth. The
 * same informer tells {@link NodePresence} (when given) which nodes are added and deleted.
 *
 * <p>The informer's store keeps of each node its name, resource version and that one label: a node object also
 * lists its images, addresses and conditions (tens of kB each on GPU nodes), which the watcher never reads. A change
 * of the label after the first list is reported to the listener; Kubernetes sets it when the node registers, so that
 * is rare.
 */
final class NodeInstanceTypes implements JobAssembler.InstanceTypeSource, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodeInstanceTypes.class);

    /** Null: no instance types, the informer serves {@link NodePresence} alone. */
    private final String label;
    private final NodePresence presence;
    private final SharedIndexInformer<Node> informer;
    private final LogLimiter logLimiter = new LogLimiter(Duration.ofMinutes(1));

    /**
     * @param label    null: no instance types
     * @param changed  called (on the informer's thread) when a node's type changed after the first list
     * @param presence null: node arrivals and departures are not published
     */
    NodeInstanceTypes(KubernetesClient client, String label, Runnable changed, NodePresence presence) {
        this.label = label;
        this.presence = presence;
        this.informer = client.nodes().runnableInformer(0);
        informer.itemStore(new NodeStore());
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node node) {
                if (presence != null) {
                    presence.arrived(node.getMetadata().getName());
                }
                report(null, node);
            }

            @Override
            public void onUpdate(Node before, Node after) {
                report(before, after);
            }

            @Override
            public void onDelete(Node node, boolean finalStateUnknown) {
                if (presence != null) {
                    presence.left(node.getMetadata().getName());
                }
                report(node, null);
            }

            private void report(Node before, Node after) {
                if (informer.hasSynced() && !Objects.equals(type(before), type(after))) {
                    changed.run();
                }
            }
        });
        informer.exceptionHandler((started, error) -> {
            long suppressed = logLimiter.admit("nodes");
            if (suppressed != LogLimiter.SUPPRESS) {
                log.warn("Kubernetes API, nodes: {}; retrying (ranks carry no instance type until nodes are listed; "
                        + "the ClusterRole needs get/list/watch on nodes){}", error.toString(),
                        LogLimiter.suffix(suppressed));
            }
            return true;
        });
    }

    /** Starts listing and watching; waits up to {@code timeout} for the first list, then goes on without it. */
    void start(Duration timeout) throws InterruptedException {
        informer.start();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!informer.hasSynced() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        if (informer.hasSynced()) {
            log.info("{} nodes listed (instance types from node label {})", informer.getStore().list().size(), label);
            reconcile();
        } else {
            log.warn("nodes not listed within {} s; going on, instance types follow once they are",
                    timeout.toSeconds());
        }
    }

    /**
     * Once the nodes are listed: tells {@link NodePresence} every node in the cluster (those that left while nobody
     * watched are published Deleted then), and has it send again what Kafka refused.
     */
    void reconcile() {
        if (presence != null && informer.hasSynced()) {
            presence.reconcile(informer.getStore().list().stream().map(n -> n.getMetadata().getName()).toList());
        }
    }

    @Override
    public String instanceType(String node) {
        return type(informer.getStore().getByKey(node));
    }

    private String type(Node node) {
        if (label == null) {
            return null;
        }
        Map<String, String> labels = node == null || node.getMetadata() == null ? null : node.getMetadata().getLabels();
        return labels == null ? null : labels.get(label);
    }

    @Override
    public void close() {
        informer.close();
    }

    /** The informer's cache, holding only what {@link #type} and the informer (resource version) read. */
    private final class NodeStore extends SlimStore<Node> {
        @Override
        Node slim(Node node) {
            String type = type(node);
            return new NodeBuilder().withNewMetadata().withName(node.getMetadata().getName())
                    .withResourceVersion(node.getMetadata().getResourceVersion())
                    .withLabels(type == null ? Map.of() : Map.of(label, type)).endMetadata().build();
        }
    }
}
