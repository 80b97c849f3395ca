package io.rdmamon.state;

import io.rdmamon.config.StoreType;
import io.rdmamon.model.JsonSerde;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

import java.util.Map;

/** Builds {@link ObjectStore}s: a changelogged, uncached key-value store below, the objects above. */
public final class ObjectStores {
    private ObjectStores() {
    }

    /** A store of {@code type} objects, encoded as JSON in the changelog. */
    public static <V> StoreBuilder<ObjectStore<V>> builder(String name, Class<V> type, StoreType storeType) {
        return builder(name, JsonSerde.of(type), storeType);
    }

    public static <V> StoreBuilder<ObjectStore<V>> builder(String name, Serde<V> serde, StoreType storeType) {
        return new Builder<>(Stores.keyValueStoreBuilder(storeType.keyValue(name), Serdes.String(), serde));
    }

    /** Delegates everything to the builder below, and wraps what it builds. */
    private static final class Builder<V> implements StoreBuilder<ObjectStore<V>> {
        private StoreBuilder<KeyValueStore<String, V>> below;

        Builder(StoreBuilder<KeyValueStore<String, V>> below) {
            this.below = below.withCachingDisabled();
        }

        @Override
        public StoreBuilder<ObjectStore<V>> withCachingEnabled() {
            return this; // the objects are the cache
        }

        @Override
        public StoreBuilder<ObjectStore<V>> withCachingDisabled() {
            return this;
        }

        @Override
        public StoreBuilder<ObjectStore<V>> withLoggingEnabled(Map<String, String> config) {
            below = below.withLoggingEnabled(config);
            return this;
        }

        @Override
        public StoreBuilder<ObjectStore<V>> withLoggingDisabled() {
            below = below.withLoggingDisabled();
            return this;
        }

        @Override
        public ObjectStore<V> build() {
            return new ObjectStore<>(below.build());
        }

        @Override
        public Map<String, String> logConfig() {
            return below.logConfig();
        }

        @Override
        public boolean loggingEnabled() {
            return below.loggingEnabled();
        }

        @Override
        public String name() {
            return below.name();
        }
    }
}
