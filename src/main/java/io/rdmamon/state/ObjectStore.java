package io.rdmamon.state;

import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * A key-value store of live Java objects in front of a changelogged Kafka Streams store. Detectors keep per-port and
 * per-job state that changes on nearly every sample; through an ordinary store each sample would cost a JSON
 * decode and encode of that state, and (with exactly-once's short commit interval) a changelog record. Here the
 * objects stay on the heap, and only the keys changed since the last commit are encoded and written to the store
 * below, once, when Kafka Streams flushes caches before it commits the transaction: the changelog then holds exactly
 * the state that goes with the committed input offsets, as with Kafka Streams' own record cache.
 *
 * <p>A key written and removed again within one commit interval (a tick buffer, a short-lived incident) costs no
 * changelog record at all. Everything is loaded from the store below on first use, after Kafka Streams restored it.
 * A dirty close (an aborted transaction) drops the objects; the task is then restored from the changelog. So does a
 * recycle between active and standby ({@link #clearCache}).
 *
 * <p>This uses Kafka Streams internals ({@link WrappedStateStore#flushCache}, the record context of the changelog
 * records), as its own caching layer does. {@code StreamsAppTest} restarts the app on a real broker with an empty
 * state directory (everything restored from these changelogs) and checks that no output repeats; {@code ObjectStoreTest}
 * checks what reaches the changelog.
 */
public final class ObjectStore<V> extends WrappedStateStore<KeyValueStore<String, V>, String, V> {
    /** Hashed, not sorted: a get or put per sample; the rare scans ({@link #all}) sort a copy. */
    private final Map<String, V> objects = new HashMap<>();
    private final Set<String> dirty = new HashSet<>();
    /** Keys the store below holds: a key removed that was never written needs no tombstone. */
    private final Set<String> persisted = new HashSet<>();
    private InternalProcessorContext<?, ?> context;
    private boolean loaded;

    ObjectStore(KeyValueStore<String, V> below) {
        super(below);
    }

    @Override
    public void init(StateStoreContext stateStoreContext, StateStore root) {
        this.context = (InternalProcessorContext<?, ?>) stateStoreContext;
        this.loaded = false;
        super.init(stateStoreContext, root);
    }

    public V get(String key) {
        load();
        return objects.get(key);
    }

    /** Stores {@code value} (which may be the instance already stored, changed in place); null removes the key. */
    public void put(String key, V value) {
        load();
        if (value == null) {
            if (objects.remove(key) == null && !persisted.contains(key)) {
                return;
            }
        } else {
            objects.put(key, value);
        }
        dirty.add(key);
    }

    public void delete(String key) {
        put(key, null);
    }

    /** Every entry, in key order: a copy, so the caller may change the store while iterating it. */
    public NavigableMap<String, V> all() {
        load();
        return new TreeMap<>(objects);
    }

    public int size() {
        load();
        return objects.size();
    }

    /** Called by Kafka Streams before every commit: writes what changed to the changelogged store below. */
    @Override
    public void flushCache() {
        if (!dirty.isEmpty()) {
            ProcessorRecordContext previous = context.recordContext();
            context.setRecordContext(new ProcessorRecordContext(context.currentSystemTimeMs(), -1, -1, null,
                    new RecordHeaders()));
            try {
                for (String key : dirty) {
                    V value = objects.get(key);
                    if (value != null) {
                        wrapped().put(key, value);
                        persisted.add(key);
                    } else if (persisted.remove(key)) {
                        wrapped().delete(key);
                    }
                }
            } finally {
                context.setRecordContext(previous);
            }
            dirty.clear();
        }
        super.flushCache();
    }

    /**
     * Called by Kafka Streams when it recycles the task between active and standby (a rebalance that keeps the state
     * here): as a standby the store below is updated from the changelog, past these objects, so they go and are
     * loaded again on first use. Kept, they came back when the task turned active again, as old as the day it
     * left, and emitted its job windows and incidents a second time.
     */
    @Override
    public void clearCache() {
        objects.clear();
        dirty.clear();
        persisted.clear();
        loaded = false;
        super.clearCache();
    }

    @Override
    public void close() {
        objects.clear();
        dirty.clear();
        persisted.clear();
        loaded = false;
        super.close();
    }

    private void load() {
        if (loaded) {
            return;
        }
        try (KeyValueIterator<String, V> it = wrapped().all()) {
            while (it.hasNext()) {
                var entry = it.next();
                objects.put(entry.key, entry.value);
                persisted.add(entry.key);
            }
        }
        loaded = true;
    }

    /** For tests: how many keys wait for the next commit. */
    int dirtyKeys() {
        return dirty.size();
    }

    /** For tests: what the store below holds. */
    Map<String, V> persistedCopy() {
        Map<String, V> copy = new TreeMap<>();
        try (KeyValueIterator<String, V> it = wrapped().all()) {
            it.forEachRemaining(kv -> copy.put(kv.key, kv.value));
        }
        return copy;
    }
}
