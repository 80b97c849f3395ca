package io.rdmamon.jobs;

import io.rdmamon.config.StoreType;
import io.rdmamon.model.JsonSerde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

import java.util.Set;

/**
 * Keyed by device or node: folds the jobs' {@link HolderUpdate}s into the current {@link Assignment} and forwards
 * each new one (null when nothing holds the key any more) at the update's timestamp, for the versioned table.
 * Assumes one device's updates arrive in {@code updatedAt} order, which holds when one watcher publishes the jobs.
 */
final class HolderSetProcessor implements Processor<String, HolderUpdate, String, Assignment> {
    static final String STORE = "assignment-holders";

    private ProcessorContext<String, Assignment> context;
    private KeyValueStore<String, Assignment> current;

    static ProcessorSupplier<String, HolderUpdate, String, Assignment> supplier(StoreType storeType) {
        return new ProcessorSupplier<>() {
            @Override
            public Processor<String, HolderUpdate, String, Assignment> get() {
                return new HolderSetProcessor();
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                StoreBuilder<KeyValueStore<String, Assignment>> store = Stores.keyValueStoreBuilder(
                        storeType.keyValue(STORE), Serdes.String(), JsonSerde.of(Assignment.class));
                return Set.of(store);
            }
        };
    }

    @Override
    public void init(ProcessorContext<String, Assignment> context) {
        this.context = context;
        this.current = context.getStateStore(STORE);
    }

    @Override
    public void process(Record<String, HolderUpdate> record) {
        Assignment before = Assignment.orNone(current.get(record.key()));
        Assignment after = before.with(record.value().uid(), record.value().holder());
        if (after.equals(before)) {
            return;
        }
        if (after.isEmpty()) {
            current.delete(record.key());
            context.forward(record.withValue(null));
        } else {
            current.put(record.key(), after);
            context.forward(record.withValue(after));
        }
    }
}
