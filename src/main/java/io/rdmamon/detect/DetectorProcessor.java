package io.rdmamon.detect;

import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.config.StoreType;
import io.rdmamon.model.Alert;
import io.rdmamon.model.JsonSerde;
import io.rdmamon.streams.state.ObjectStore;
import io.rdmamon.streams.state.ObjectStores;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Runs one {@link Detector}: its state per subject as live objects in {@link ObjectStore} {@code <type>-state}
 * (written to the changelog once per commit, not per record), its open incidents in {@code <type>-incidents}
 * (changelogged and cached), alerts out keyed by id with timestamp
 * {@code detectedAt} (firing) or {@code endsAt} (resolved).
 */
public final class DetectorProcessor<V, S> implements Processor<String, V, String, Alert> {
    /** How often, in stream time, every state is offered to {@link Detector#expire}. */
    public static final Duration EXPIRY_INTERVAL = Duration.ofSeconds(10);

    private final Detector<V, S> detector;
    private final AlertOutput output;
    private ProcessorContext<String, Alert> context;
    private ObjectStore<S> states;
    private IncidentBook incidents;

    private DetectorProcessor(Detector<V, S> detector, AlertOutput output) {
        this.detector = detector;
        this.output = output;
    }

    public static <V, S> ProcessorSupplier<String, V, String, Alert> supplier(Detector<V, S> detector,
                                                                              MeterRegistry registry,
                                                                              StoreType storeType) {
        AlertOutput output = new AlertOutput(registry);
        return new ProcessorSupplier<>() {
            @Override
            public Processor<String, V, String, Alert> get() {
                return new DetectorProcessor<>(detector, output);
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return Set.of(
                        ObjectStores.builder(stateStore(detector.type()), detector.stateType(), storeType),
                        incidentStore(detector.type(), storeType));
            }
        };
    }

    /** The store of a detector's open incidents (also used by detectors that run their own processor). */
    public static StoreBuilder<KeyValueStore<String, Alert>> incidentStore(String type, StoreType storeType) {
        return Stores.keyValueStoreBuilder(storeType.keyValue(incidentStoreName(type)),
                Serdes.String(), JsonSerde.of(Alert.class)).withCachingEnabled();
    }

    static String incidentStoreName(String type) {
        return storeName(type) + "-incidents";
    }

    static String stateStore(String type) {
        return storeName(type) + "-state";
    }

    public static String storeName(String type) {
        return type.toLowerCase(Locale.ROOT).replace('_', '-');
    }

    @Override
    public void init(ProcessorContext<String, Alert> context) {
        this.context = context;
        this.states = context.getStateStore(stateStore(detector.type()));
        this.incidents = new IncidentBook(detector.type(), context.getStateStore(incidentStoreName(detector.type())));
        context.schedule(EXPIRY_INTERVAL, PunctuationType.STREAM_TIME, this::expireAll);
    }

    @Override
    public void process(Record<String, V> record) {
        String key = detector.stateKey(record.key(), record.value());
        if (key == null) {
            return;
        }
        S before = states.get(key);
        apply(key, before, detector.inspect(before, record.value(), record.timestamp()));
    }

    private void expireAll(long streamTime) {
        for (Map.Entry<String, S> entry : states.all().entrySet()) {
            apply(entry.getKey(), entry.getValue(), detector.expire(entry.getValue(), streamTime));
        }
    }

    private void apply(String key, S before, Result<S> result) {
        if (result == null) {
            return;
        }
        if (result.state() == null) {
            if (before != null) {
                states.delete(key);
            }
        } else if (!Objects.equals(before, result.state()) || before == result.state()) {
            // a mutable state object may have been changed in place: then it is the same instance and is written
            states.put(key, result.state());
        }
        for (Observation observation : result.observations()) {
            publish(incidents.apply(key, observation));
        }
        if (result.closeAllAt() != null) {
            incidents.closeAll(key, result.closeAllAt()).forEach(this::publish);
        }
    }

    private void publish(Alert alert) {
        output.publish(context, alert);
    }
}
