package io.rdmamon.detect;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.model.Alert;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Forwards alerts keyed by id, timestamped {@code detectedAt} (firing) or {@code endsAt} (resolved), and counts them
 * as {@code rdmamon_streams_alerts_total{type,status}}.
 */
final class AlertOutput {
    private final MeterRegistry registry;

    AlertOutput(MeterRegistry registry) {
        this.registry = registry;
    }

    void publish(ProcessorContext<String, Alert> context, Alert alert) {
        if (alert != null) {
            context.forward(record(alert));
        }
    }

    /** The alert as the record to forward, counted as published. */
    Record<String, Alert> record(Alert alert) {
        long ts = Alert.FIRING.equals(alert.status()) ? alert.detectedAt() : alert.endsAt();
        Counter.builder("rdmamon.streams.alerts").description("Alerts published, by type and status")
                .tag("type", alert.type()).tag("status", alert.status()).register(registry).increment();
        return new Record<>(alert.id(), alert, ts);
    }
}
