package io.rdmamon.streams;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code rdmamon_streams_dead_letters_total{topic,reason}}: one input topic's dead letters by reason code (see
 * {@link io.rdmamon.model.Rejection}; a dozen or so, so the tag stays small). A reason's counter appears with its first
 * dead letter. Stream threads share it.
 */
final class DeadLetterCounters {
    static final String NAME = "rdmamon.streams.dead.letters";

    private final MeterRegistry registry;
    private final String topic;
    private final Map<String, Counter> byReason = new ConcurrentHashMap<>();

    DeadLetterCounters(MeterRegistry registry, String topic) {
        this.registry = registry;
        this.topic = topic;
    }

    void increment(String reason) {
        byReason.computeIfAbsent(reason, r -> Counter.builder(NAME)
                .description("Input records sent to the dead-letter topic, by source topic and reason")
                .tag("topic", topic).tag("reason", r).register(registry)).increment();
    }
}
