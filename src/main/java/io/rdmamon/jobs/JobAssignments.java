package io.rdmamon.jobs;

import io.rdmamon.config.StoreType;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.JsonSerde;
import io.rdmamon.model.PortSample;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Joined;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.Stores;

import java.time.Duration;

/**
 * The job-metadata join. Job records (key uid) become holds on devices and nodes, re-keyed to {@code node/device} and
 * {@code node/*}, folded into the Running jobs per key and kept in a <em>versioned</em> table; each sample then joins
 * the assignment that was valid at the sample's own timestamp, after waiting {@code joinGrace} of stream time so
 * that slightly late metadata still applies.
 */
public final class JobAssignments {
    public static final String ASSIGNMENTS_STORE = "assignments";

    private JobAssignments() {
    }

    public static KTable<String, Assignment> table(KStream<String, JobRecord> jobs, Duration historyRetention,
                                                   StoreType storeType) {
        return jobs
                .process(AssignmentDiffProcessor.supplier(storeType), Named.as("job-assignment-diff"))
                .repartition(Repartitioned.<String, HolderUpdate>as("assignment-updates")
                        .withKeySerde(Serdes.String()).withValueSerde(JsonSerde.of(HolderUpdate.class)))
                .process(HolderSetProcessor.supplier(storeType), Named.as("assignment-holders"))
                .toTable(Named.as("assignment-table"), Materialized.<String, Assignment>as(
                                Stores.persistentVersionedKeyValueStore(ASSIGNMENTS_STORE, historyRetention))
                        .withKeySerde(Serdes.String()).withValueSerde(JsonSerde.of(Assignment.class)));
    }

    public static KStream<String, AssignedInput> assign(KStream<String, PortSample> ports,
                                                        KStream<String, HostIfaceSample> hosts,
                                                        KTable<String, Assignment> assignments, Duration joinGrace) {
        KStream<String, NodeInput> byDevice = ports.map(
                (key, s) -> KeyValue.pair(AssignmentKeys.device(s.node(), s.device()), NodeInput.of(s)),
                Named.as("key-port-sample-by-device"));
        KStream<String, NodeInput> byNode = hosts.map(
                (key, h) -> KeyValue.pair(AssignmentKeys.node(h.node()), NodeInput.of(h)),
                Named.as("key-host-sample-by-node"));
        Joined<String, NodeInput, Assignment> joined = Joined.with(Serdes.String(), JsonSerde.of(NodeInput.class),
                JsonSerde.of(Assignment.class)).withName("assign-job");
        // a zero grace still builds the (RocksDB) reorder buffer: leave it out entirely
        joined = joinGrace.isZero() ? joined : joined.withGracePeriod(joinGrace);
        return byDevice.merge(byNode, Named.as("node-inputs"))
                .repartition(Repartitioned.<String, NodeInput>as("node-inputs-by-device")
                        .withKeySerde(Serdes.String()).withValueSerde(JsonSerde.of(NodeInput.class)))
                .leftJoin(assignments,
                        (input, assignment) -> new AssignedInput(input.port(), input.host(), assignment), joined);
    }
}
