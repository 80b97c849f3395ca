package io.rdmamon.config;

import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.Stores;

/**
 * Where a Kafka Streams key-value store keeps its data. Both kinds are changelogged, so both survive a restart;
 * RocksDB restores only what changed since the last checkpoint, memory restores everything from the changelog but
 * skips disk I/O (what replays and tests want).
 */
public enum StoreType {
    ROCKSDB, IN_MEMORY;

    public KeyValueBytesStoreSupplier keyValue(String name) {
        return this == IN_MEMORY ? Stores.inMemoryKeyValueStore(name) : Stores.persistentKeyValueStore(name);
    }
}
