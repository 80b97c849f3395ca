package io.rdmamon.jobs.k8s;

import io.rdmamon.model.NodeRecord;
import io.rdmamon.model.RecordParser;
import io.rdmamon.support.TopicReader;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;

/**
 * Publishes which nodes are in the cluster to the nodes topic ({@link NodeRecord}, compacted, key = node): Present
 * when the node informer lists or adds a node, Deleted when its Node object is deleted (autoscaler scale-in, a
 * reclaimed spot instance). The stream app then does not report such a node's collector as silent.
 *
 * <p>Only changes are sent. What was sent is read back from the topic at start (the records with this role's source
 * header), and every complete list is compared with it: so a restarted watcher repeats nothing, and a node that left
 * (or came back) while it was down is published then. A record Kafka refused is sent again at the next reconcile.
 */
final class NodePresence {
    private static final Logger log = LoggerFactory.getLogger(NodePresence.class);

    private final String topic;
    private final JobsPublisher publisher;
    private final Clock clock;
    /** The last state sent per node (read back at start). */
    private final Map<String, String> sent = new HashMap<>();
    /** Nodes whose last record Kafka did not take (set on the producer's thread, hence not under the lock). */
    private final Set<String> unsent = ConcurrentHashMap.newKeySet();

    private NodePresence(String topic, JobsPublisher publisher, Clock clock) {
        this.topic = topic;
        this.publisher = publisher;
        this.clock = clock;
    }

    /**
     * Reads back what this role published to {@code topic}. Null when the topic does not exist: node departures are
     * then not published (and the stream app reports a deleted node's collector as silent, as before), which is
     * logged; the watcher's jobs are not held up by it.
     *
     * @throws TimeoutException when the topic cannot be read to its end within {@code timeout}
     */
    static NodePresence readBack(Map<String, Object> readerSettings, String topic, JobsPublisher publisher,
                                 Clock clock, Duration timeout) throws TimeoutException {
        NodePresence presence = new NodePresence(topic, publisher, clock);
        int[] skipped = {0};
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(readerSettings)) {
            if (consumer.partitionsFor(topic, timeout).isEmpty()) {
                log.warn("topic {} does not exist: node departures are not published, so the stream app reports the "
                        + "collector of a deleted node as silent; create it (compacted, key = node)", topic);
                return null;
            }
            TopicReader.readToEnd(consumer, topic, timeout, r -> {
                if (!PublishedJobs.ours(r)) {
                    return;
                }
                if (r.value() == null) {
                    presence.sent.remove(r.key());
                    return;
                }
                RecordParser.Parsed<NodeRecord> node = RecordParser.NODE.parse(r.value(), r.timestamp());
                if (node.ok()) {
                    presence.sent.put(node.value().node(), node.value().state());
                } else {
                    skipped[0]++;
                }
            });
        }
        if (skipped[0] > 0) {
            log.warn("{} unreadable records of this watcher on {} ignored while reading back", skipped[0], topic);
        }
        log.info("read back {} nodes from {}", presence.sent.size(), topic);
        return presence;
    }

    /** A node the informer added (or listed). */
    synchronized void arrived(String node) {
        publish(node, NodeRecord.PRESENT);
    }

    /** A node whose Node object was deleted. */
    synchronized void left(String node) {
        publish(node, NodeRecord.DELETED);
    }

    /**
     * After a complete list ({@code listed}: every node in the cluster now): nodes published Present that are not
     * listed left while nobody watched; and what Kafka refused is sent again.
     */
    synchronized void reconcile(Collection<String> listed) {
        Set<String> now = new HashSet<>(listed);
        now.forEach(this::arrived);
        List<String> gone = sent.entrySet().stream()
                .filter(e -> NodeRecord.PRESENT.equals(e.getValue()) && !now.contains(e.getKey()))
                .map(Map.Entry::getKey).toList();
        gone.forEach(this::left);
        for (String node : List.copyOf(unsent)) {
            unsent.remove(node);
            send(node, sent.get(node));
        }
    }

    private void publish(String node, String state) {
        if (!state.equals(sent.get(node))) {
            sent.put(node, state);
            unsent.remove(node);
            send(node, state);
        }
    }

    private void send(String node, String state) {
        long at = clock.millis();
        publisher.sendNode(topic, new NodeRecord(NodeRecord.VERSION, node, state, at),
                refused -> unsent.add(refused.node()));
    }
}
