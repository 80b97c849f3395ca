package io.rdmamon.detect;

import io.micrometer.core.instrument.Counter;
import io.rdmamon.model.NodeRecord;
import io.rdmamon.model.RecordParser;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.Set;

/**
 * The nodes whose Node object was deleted from the cluster (autoscaler scale-in, a reclaimed spot instance), as
 * {@code jobs watch} publishes them to the nodes topic ({@link NodeRecord}), for {@link CollectorSilenceDetector}: the
 * collector of a node that left is not a silent collector.
 *
 * <p>The topic is read as a global table (every instance holds all of it) rather than partitioned like the samples:
 * it is one small record per node, it needs no co-partitioning with the sample topics (whose partition count the
 * operator chooses) and no repartition topic, and the detector only looks a node up when it has gone silent, at its
 * wall-clock check; nothing has to be triggered by a node record. The table keeps the raw bytes, parsed here: a record
 * outside the contract is logged once and counted ({@code rdmamon_streams_nodes_invalid_total}) and counts as no
 * departure, so such a node is reported silent as before.
 */
final class NodeDepartures {
    private static final Logger log = LoggerFactory.getLogger(NodeDepartures.class);

    /** Null: no nodes topic configured, no node ever departs. */
    private final KeyValueStore<String, ValueAndTimestamp<byte[]>> table;
    private final Counter invalid;
    /** The invalid records already logged (node and record timestamp), so a check every second logs each once. */
    private final Set<String> logged = new HashSet<>();

    NodeDepartures(KeyValueStore<String, ValueAndTimestamp<byte[]>> table, Counter invalid) {
        this.table = table;
        this.invalid = invalid;
    }

    /**
     * When the node's Node object was deleted, if its latest record says it was; null while it is present, or when
     * nothing (or nothing readable) is known of it.
     */
    Long deletedAt(String node) {
        ValueAndTimestamp<byte[]> stored = table == null ? null : table.get(node);
        if (stored == null || stored.value() == null) {
            return null;
        }
        RecordParser.Parsed<NodeRecord> parsed = RecordParser.NODE.parse(stored.value(), stored.timestamp());
        if (!parsed.ok()) {
            if (logged.add(node + "@" + stored.timestamp())) {
                invalid.increment();
                log.warn("node record of {} on the nodes topic not used ({}): {}; the node counts as present",
                        node, parsed.code(), parsed.error());
            }
            return null;
        }
        return parsed.value().deleted() ? parsed.value().at() : null;
    }
}
