package io.rdmamon.support;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Where topics end and where a consumer group stands, from the outside (benchmarks, tests). */
public final class KafkaOffsets {
    private KafkaOffsets() {
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

    /** The offsets {@code group} has committed, per partition; partitions without a commit are left out. */
    public static Map<TopicPartition, Long> committed(Admin admin, String group)
            throws ExecutionException, InterruptedException {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get();
        return offsets.entrySet().stream().filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }
}
