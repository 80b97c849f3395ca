package io.rdmamon.model;

import org.apache.kafka.clients.producer.Partitioner;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.utils.Utils;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The partitioning contract of {@code rdma.port-samples} and {@code rdma.host-samples}: a record goes to partition
 * {@code toPositive(murmur2(UTF-8 bytes of its node)) % partitions}, where the node is the record key up to its first
 * {@code /} ({@code node/device/port}, {@code node/iface}). That is Kafka's default partitioner applied to the node
 * alone, so all of one node's ports and its host interfaces share one partition, and the stream app judges ports,
 * nodes and their job assignment without re-partitioning every sample. Both topics must have the same number of
 * partitions. Producers in Java set {@code partitioner.class=io.rdmamon.model.NodePartitioner}; others compute the
 * partition with the same formula (librdkafka's {@code murmur2_random} partitioner on a key of the node alone gives
 * it). The stream app counts records that arrive elsewhere ({@code rdmamon_streams_misrouted_samples_total}).
 */
public final class NodePartitioner implements Partitioner {
    /** The partition of a record key ({@code node/...}) among {@code partitions}. */
    public static int partition(String key, int partitions) {
        return Utils.toPositive(Utils.murmur2(node(key).getBytes(StandardCharsets.UTF_8))) % partitions;
    }

    /** The node part of a key: up to the first {@code /}, or the whole key. */
    public static String node(String key) {
        int slash = key.indexOf('/');
        return slash < 0 ? key : key.substring(0, slash);
    }

    @Override
    public int partition(String topic, Object key, byte[] keyBytes, Object value, byte[] valueBytes,
                         Cluster cluster) {
        int partitions = cluster.partitionsForTopic(topic).size();
        if (key == null) {
            throw new IllegalArgumentException("records on " + topic + " need a key (node/...)");
        }
        return partition(key.toString(), partitions);
    }

    @Override
    public void close() {
    }

    @Override
    public void configure(Map<String, ?> configs) {
    }
}
