package io.rdmamon.alerts;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * A receiver's delivery counters, tag {@code receiver}: {@code rdmamon_alerts_delivered_total} (records accepted),
 * {@code _failed_total} (attempts that failed and will be retried), {@code _retries_total},
 * {@code _dead_lettered_total} (tag {@code reason}: {@code rejected} by the receiver or {@code invalid} record),
 * {@code _resent_total} (firing alerts re-posted to keep them alive) and the gauge {@code rdmamon_alerts_active}.
 */
final class DeliveryMetrics {
    static final String PREFIX = "rdmamon.alerts.";
    static final String REJECTED = "rejected";
    static final String INVALID = "invalid";

    final Counter delivered;
    final Counter failed;
    final Counter retries;
    final Counter rejected;
    final Counter invalid;
    final Counter resent;
    private final MeterRegistry registry;
    private final Gauge active;

    DeliveryMetrics(MeterRegistry registry, String receiver, ActiveIncidents incidents) {
        delivered = counter(registry, "delivered", receiver, "Alert records the receiver accepted");
        failed = counter(registry, "failed", receiver, "Delivery attempts that failed and are retried");
        retries = counter(registry, "retries", receiver, "Delivery retries after a backoff");
        rejected = deadLettered(registry, receiver, REJECTED);
        invalid = deadLettered(registry, receiver, INVALID);
        resent = counter(registry, "resent", receiver, "Firing alerts re-posted to keep them active");
        this.registry = registry;
        this.active = incidents == null ? null : Gauge.builder(PREFIX + "active", incidents, ActiveIncidents::size)
                .tag("receiver", receiver).description("Firing incidents kept alive at the receiver")
                .register(registry);
    }

    /** The gauge reads this delivery's state: a later delivery in the same process registers its own. */
    void close() {
        if (active != null) {
            registry.remove(active);
        }
    }

    private static Counter counter(MeterRegistry registry, String name, String receiver, String description) {
        return Counter.builder(PREFIX + name).tag("receiver", receiver).description(description).register(registry);
    }

    private static Counter deadLettered(MeterRegistry registry, String receiver, String reason) {
        return Counter.builder(PREFIX + "dead.lettered").tag("receiver", receiver).tag("reason", reason)
                .description("Alert records written to the dead-letter topic").register(registry);
    }
}
