package io.rdmamon.support;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * What a consumer of a transactional topic last committed, per partition, so that it can commit again once its
 * position has moved past a transaction marker. The stream app writes in transactions: after its last record comes
 * a commit marker, which the consumer skips but never returns; committing {@code last offset + 1} would leave lag
 * tools showing 1 for a consumer that is up to date. Call from the consuming thread only.
 */
public final class CommittedPositions {
    private final Map<TopicPartition, Long> last = new HashMap<>();

    /** After a successful commit of {@code offsets}. */
    public void committed(Map<TopicPartition, OffsetAndMetadata> offsets) {
        offsets.forEach((partition, offset) -> last.put(partition, offset.offset()));
    }

    /** On revocation: assigned again later, a partition has no position until it is fetched, so it is not asked. */
    public void forget(Collection<TopicPartition> partitions) {
        last.keySet().removeAll(partitions);
    }

    /**
     * The partitions committed before (whose position is known without a request) that the consumer's position has
     * moved past, with that position. Only correct once everything before the position is processed.
     */
    public Map<TopicPartition, OffsetAndMetadata> movedOn(Consumer<?, ?> consumer) {
        last.keySet().retainAll(consumer.assignment());
        Map<TopicPartition, OffsetAndMetadata> moved = new HashMap<>();
        last.forEach((partition, offset) -> {
            long position = consumer.position(partition);
            if (position > offset) {
                moved.put(partition, new OffsetAndMetadata(position));
            }
        });
        return moved;
    }
}
