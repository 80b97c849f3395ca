package io.rdmamon.detect;

import io.rdmamon.config.StoreType;
import io.rdmamon.model.Alert;
import io.rdmamon.model.JsonSerde;
import io.rdmamon.state.ObjectStore;
import io.rdmamon.state.ObjectStores;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

import java.util.Locale;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A {@link Detector}'s two stores and how one of its {@link Result}s changes them: its state per subject as live
 * objects in {@link ObjectStore} {@code <type>-state} (written to the changelog once per commit, not per record), and
 * its open incidents in {@code <type>-incidents} (changelogged and cached), which turn observations into one firing and
 * one resolved alert per incident. The store names are the changelog topics' names: they stay as they are.
 */
final class DetectorStores<S> {
    private final ObjectStore<S> states;
    private final IncidentBook incidents;

    DetectorStores(Detector<?, S> detector, ProcessorContext<?, ?> context) {
        this.states = context.getStateStore(stateStore(detector.type()));
        this.incidents = new IncidentBook(detector.type(), context.getStateStore(incidentStoreName(detector.type())));
    }

    /** The builders of both stores, for the processor's supplier. */
    static Set<StoreBuilder<?>> builders(Detector<?, ?> detector, StoreType storeType) {
        return Set.of(ObjectStores.builder(stateStore(detector.type()), detector.stateType(), storeType),
                incidentStore(detector.type(), storeType));
    }

    /** The store of a detector's open incidents (also used by detectors that run their own processor). */
    static StoreBuilder<KeyValueStore<String, Alert>> incidentStore(String type, StoreType storeType) {
        return Stores.keyValueStoreBuilder(storeType.keyValue(incidentStoreName(type)),
                Serdes.String(), JsonSerde.of(Alert.class)).withCachingEnabled();
    }

    static String incidentStoreName(String type) {
        return storeName(type) + "-incidents";
    }

    static String stateStore(String type) {
        return storeName(type) + "-state";
    }

    static String storeName(String type) {
        return type.toLowerCase(Locale.ROOT).replace('_', '-');
    }

    S get(String key) {
        return states.get(key);
    }

    /** Every state, in key order: a copy, so {@link #apply} may change the store meanwhile. */
    NavigableMap<String, S> all() {
        return states.all();
    }

    /**
     * Stores {@code result}'s state for {@code key} (whose state was {@code before}) and hands each alert it causes to
     * {@code publish}, in order. A null result changes nothing.
     */
    void apply(String key, S before, Result<S> result, Consumer<Alert> publish) {
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
            Alert alert = incidents.apply(key, observation);
            if (alert != null) {
                publish.accept(alert);
            }
        }
        if (result.closeAllAt() != null) {
            incidents.closeAll(key, result.closeAllAt()).forEach(publish);
        }
    }
}
