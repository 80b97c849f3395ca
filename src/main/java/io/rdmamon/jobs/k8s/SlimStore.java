package io.rdmamon.jobs.k8s;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * An informer cache that keeps of each object only what the watcher reads ({@link #slim}), or nothing: the API server
 * sends whole objects, whose bulk (pod environments and volumes, node images) the watcher never looks at.
 */
abstract class SlimStore<T extends HasMetadata> implements ItemStore<T> {
    private final Map<String, T> items = new ConcurrentHashMap<>();

    /** The object reduced to what is read, with its resource version (the informer resumes from it); null: not kept. */
    abstract T slim(T item);

    @Override
    public String getKey(T item) {
        return Cache.metaNamespaceKeyFunc(item);
    }

    @Override
    public T put(String key, T item) {
        T slim = slim(item);
        return slim == null ? items.remove(key) : items.put(key, slim);
    }

    @Override
    public T remove(String key) {
        return items.remove(key);
    }

    @Override
    public Stream<String> keySet() {
        return items.keySet().stream();
    }

    @Override
    public Stream<T> values() {
        return items.values().stream();
    }

    @Override
    public int size() {
        return items.size();
    }

    @Override
    public T get(String key) {
        return items.get(key);
    }
}
