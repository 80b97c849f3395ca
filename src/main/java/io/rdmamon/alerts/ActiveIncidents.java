package io.rdmamon.alerts;

import org.apache.kafka.common.TopicPartition;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The incidents that are firing, as far as the records delivered so far tell, for the partitions this instance owns:
 * what is re-posted to Alertmanager every resend interval. Bounded by the number of concurrently firing incidents,
 * not by the topic's length. Rebuilt from the topic when partitions are assigned ({@link IncidentHistory}).
 */
final class ActiveIncidents {
    private final Map<TopicPartition, Map<String, AlertMessage>> byPartition = new ConcurrentHashMap<>();

    /** A firing record opens (or refreshes) its incident, a resolved record closes it. */
    void apply(TopicPartition partition, AlertMessage message) {
        Map<String, AlertMessage> incidents = byPartition.computeIfAbsent(partition, p -> new ConcurrentHashMap<>());
        if (message.firing()) {
            incidents.put(message.id(), message);
        } else {
            incidents.remove(message.id());
        }
    }

    /** Drops a closed incident whatever its partition (e.g. the receiver refuses to hear of it any more). */
    void remove(String id) {
        byPartition.values().forEach(incidents -> incidents.remove(id));
    }

    void forget(Collection<TopicPartition> partitions) {
        partitions.forEach(byPartition::remove);
    }

    List<AlertMessage> all() {
        List<AlertMessage> all = new ArrayList<>();
        byPartition.values().forEach(incidents -> all.addAll(incidents.values()));
        return all;
    }

    int size() {
        return byPartition.values().stream().mapToInt(Map::size).sum();
    }
}
