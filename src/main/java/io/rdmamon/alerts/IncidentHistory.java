package io.rdmamon.alerts;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Rebuilds {@link ActiveIncidents} from the alerts topic itself: reads the assigned partitions from their beginning up
 * to the committed offsets (everything after is delivered by the loop anyway) and keeps the incidents whose last
 * record is {@code firing}. No local store to lose; with {@code cleanup.policy=compact} on the topic (key = incident
 * id) the read is short and long-running incidents survive retention.
 */
final class IncidentHistory {
    private static final Logger log = LoggerFactory.getLogger(IncidentHistory.class);
    private static final Duration POLL = Duration.ofMillis(200);

    private final Map<String, Object> consumerSettings;
    private final Duration deadline;

    /** @param kafkaSettings the role's Kafka client settings (bootstrap, security); a group id is not used */
    IncidentHistory(Map<String, Object> kafkaSettings, Duration deadline) {
        this.consumerSettings = new HashMap<>(kafkaSettings);
        consumerSettings.remove(ConsumerConfig.GROUP_ID_CONFIG);
        consumerSettings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumerSettings.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumerSettings.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        consumerSettings.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        this.deadline = deadline;
    }

    /**
     * Applies every valid record of each partition below its offset in {@code until} to {@code into}.
     *
     * @return the number of records read
     */
    long replay(Map<TopicPartition, Long> until, ActiveIncidents into) {
        Map<TopicPartition, Long> todo = new HashMap<>(until);
        todo.values().removeIf(offset -> offset <= 0);
        if (todo.isEmpty()) {
            return 0;
        }
        long read = 0;
        long giveUpAt = System.nanoTime() + deadline.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerSettings)) {
            consumer.assign(todo.keySet());
            consumer.seekToBeginning(todo.keySet());
            while (!todo.isEmpty()) {
                if (System.nanoTime() > giveUpAt) {
                    log.warn("gave up rebuilding the active incidents of {} after {}: incidents firing there are not "
                            + "re-posted until their next record", todo.keySet(), deadline);
                    break;
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL)) {
                    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
                    Long end = todo.get(tp);
                    if (end == null || record.offset() >= end || record.value() == null) {
                        continue;
                    }
                    read++;
                    try {
                        into.apply(tp, AlertMessage.parse(record.value()));
                    } catch (AlertMessage.InvalidAlertException e) {
                        // already dead-lettered when it was first delivered
                    }
                }
                todo.entrySet().removeIf(e -> consumer.position(e.getKey()) >= e.getValue());
                consumer.pause(consumer.assignment().stream().filter(tp -> !todo.containsKey(tp)).toList());
            }
        }
        return read;
    }
}
