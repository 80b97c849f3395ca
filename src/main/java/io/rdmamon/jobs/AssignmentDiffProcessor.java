package io.rdmamon.jobs;

import io.rdmamon.model.JobRecord;
import io.rdmamon.config.StoreType;
import io.rdmamon.model.JsonSerde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Set;

/**
 * Keyed by job uid: remembers each job's last record and turns a new one into per-device and per-node
 * {@link HolderUpdate}s, timestamped with the job's {@code updatedAt} so the versioned table knows from when a
 * hold is valid. An update older than the one already seen is stale (out of order) and ignored.
 */
final class AssignmentDiffProcessor implements Processor<String, JobRecord, String, HolderUpdate> {
    static final String STORE = "job-last-records";
    private static final Logger log = LoggerFactory.getLogger(AssignmentDiffProcessor.class);

    private ProcessorContext<String, HolderUpdate> context;
    private KeyValueStore<String, JobRecord> lastRecords;

    static ProcessorSupplier<String, JobRecord, String, HolderUpdate> supplier(StoreType storeType) {
        return new ProcessorSupplier<>() {
            @Override
            public Processor<String, JobRecord, String, HolderUpdate> get() {
                return new AssignmentDiffProcessor();
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                StoreBuilder<KeyValueStore<String, JobRecord>> store = Stores.keyValueStoreBuilder(
                        storeType.keyValue(STORE), Serdes.String(), JsonSerde.of(JobRecord.class));
                return Set.of(store);
            }
        };
    }

    @Override
    public void init(ProcessorContext<String, HolderUpdate> context) {
        this.context = context;
        this.lastRecords = context.getStateStore(STORE);
    }

    @Override
    public void process(Record<String, JobRecord> record) {
        JobRecord job = record.value();
        JobRecord previous = lastRecords.get(job.uid());
        if (previous != null && job.updatedAt() < previous.updatedAt()) {
            log.debug("ignoring stale update of job {} (updatedAt {} < {})", job.uid(), job.updatedAt(),
                    previous.updatedAt());
            return;
        }
        for (KeyValue<String, HolderUpdate> change : AssignmentDiff.changes(job.uid(), previous, job)) {
            context.forward(new Record<>(change.key, change.value, job.updatedAt()));
        }
        if (JobRecord.DELETED.equals(job.state())) {
            lastRecords.delete(job.uid());
        } else {
            lastRecords.put(job.uid(), job);
        }
    }
}
