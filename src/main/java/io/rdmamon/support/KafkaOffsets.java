package io.rdmamon.support;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** Where topics end, whether their partitions take writes yet, and where a consumer group stands, from the outside. */
public final class KafkaOffsets {
    /** How long {@link #createTopics} waits for new topics to take writes. */
    public static final Duration WRITABLE_TIMEOUT = Duration.ofSeconds(30);

    private KafkaOffsets() {
    }

    /** Creates {@code topics} and returns once every partition of them takes writes ({@link #awaitWritable}). */
    public static void createTopics(Admin admin, Collection<NewTopic> topics)
            throws ExecutionException, InterruptedException {
        admin.createTopics(topics).all().get();
        awaitWritable(admin, topics.stream().map(NewTopic::name).toList(), WRITABLE_TIMEOUT);
    }

    /** The end offset of every partition of {@code topics} (after a transaction, its marker counts as one). */
    public static Map<TopicPartition, Long> endOffsets(Admin admin, Collection<String> topics)
            throws ExecutionException, InterruptedException {
        Map<TopicPartition, OffsetSpec> latest = admin.describeTopics(topics).allTopicNames().get().values().stream()
                .flatMap(d -> d.partitions().stream().map(p -> new TopicPartition(d.name(), p.partition())))
                .collect(Collectors.toMap(Function.identity(), tp -> OffsetSpec.latest()));
        return admin.listOffsets(latest).all().get().entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    /**
     * Waits until the broker answers for every partition of {@code topics} as their leader. A topic exists once the
     * controller has created it, but the broker serves a partition only after it has applied that, a moment later
     * (its metadata cache first, so a describe already names a leader). An idempotent producer whose first request
     * meets that moment (NOT_LEADER) while its second, to the same partition, is appended, retries the first with an
     * out-of-order sequence until its delivery timeout and loses it (KAFKA-15591, fixed in Kafka 4.5). The end
     * offsets come from the partition leader itself, so once they are listed, writes land.
     */
    public static void awaitWritable(Admin admin, Collection<String> topics, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                endOffsets(admin, topics);
                return;
            } catch (ExecutionException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the partitions of " + topics + " have no leader serving them "
                            + "after " + timeout.toSeconds() + " s: " + e.getCause().getMessage(), e.getCause());
                }
                // UnknownTopicOrPartition or NotLeaderOrFollower until the broker has applied the new topics
                Thread.sleep(20);
            }
        }
    }

    /**
     * Bytes in the brokers' log directories per topic, for the topics {@code include} accepts: every replica's
     * segments (what the brokers store and, before replication, receive), compressed as they were written.
     */
    public static Map<String, Long> logBytesByTopic(Admin admin, Predicate<String> include)
            throws ExecutionException, InterruptedException {
        List<Integer> brokers = admin.describeCluster().nodes().get().stream().map(Node::id).toList();
        Map<String, Long> bytes = new HashMap<>();
        for (Map<String, LogDirDescription> dirs : admin.describeLogDirs(brokers).allDescriptions().get().values()) {
            for (LogDirDescription dir : dirs.values()) {
                dir.replicaInfos().forEach((tp, replica) -> {
                    if (include.test(tp.topic())) {
                        bytes.merge(tp.topic(), replica.size(), Long::sum);
                    }
                });
            }
        }
        return bytes;
    }

    /** The offsets {@code group} has committed, per partition; partitions without a commit are left out. */
    public static Map<TopicPartition, Long> committed(Admin admin, String group)
            throws ExecutionException, InterruptedException {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get();
        return offsets.entrySet().stream().filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }
}
