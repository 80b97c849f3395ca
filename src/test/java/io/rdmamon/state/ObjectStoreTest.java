package io.rdmamon.state;

import io.rdmamon.config.StoreType;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/** What an {@link ObjectStore} writes to its changelog: changed keys once per commit, nothing for a key come and gone. */
class ObjectStoreTest {
    private static final String STORE = "counts";
    private static final String CHANGELOG = "object-store-test-" + STORE + "-changelog";

    /** Value "k1,k2" increments k1 and k2 (in place); "-k" puts k then removes it; "x:k" removes k. */
    static final class Counting implements Processor<String, String, Void, Void> {
        private ObjectStore<Counter> counts;

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            counts = context.getStateStore(STORE);
        }

        @Override
        public void process(Record<String, String> record) {
            for (String op : record.value().split(",")) {
                if (op.startsWith("-")) {
                    counts.put(op.substring(1), new Counter());
                    counts.delete(op.substring(1));
                } else if (op.startsWith("x:")) {
                    counts.delete(op.substring(2));
                } else {
                    Counter c = counts.get(op);
                    if (c == null) {
                        c = new Counter();
                    }
                    c.n++;
                    counts.put(op, c);
                }
            }
        }
    }

    public static final class Counter {
        public int n;
    }

    /** {@link Counting} on topic "in" with its object store; the driver commits after every record. */
    private static TopologyTestDriver countingDriver() {
        Topology topology = new Topology();
        topology.addSource("in", Serdes.String().deserializer(), Serdes.String().deserializer(), "in");
        topology.addProcessor("count", Counting::new, "in");
        topology.addStateStore(ObjectStores.builder(STORE, Counter.class, StoreType.IN_MEMORY), "count");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "object-store-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        return new TopologyTestDriver(topology, props);
    }

    @Test
    void shouldWriteEachChangedKeyOncePerCommitAndNothingForAKeyThatCameAndWent() {
        try (TopologyTestDriver driver = countingDriver()) {
            TestInputTopic<String, String> in = driver.createInputTopic("in", new StringSerializer(),
                    new StringSerializer());
            // the driver commits after every record: one record = one commit interval
            in.pipeInput("r", "a,a,a,b");
            in.pipeInput("r", "-c");
            in.pipeInput("r", "a");
            in.pipeInput("r", "x:b");
            List<String> changelog = new ArrayList<>();
            driver.createOutputTopic(CHANGELOG, new StringDeserializer(), new StringDeserializer())
                    .readKeyValuesToList().forEach(kv -> changelog.add(kv.key + "=" + kv.value));
            assertThat(changelog).containsExactly("a={\"n\":3}", "b={\"n\":1}", "a={\"n\":4}", "b=null");
            @SuppressWarnings("unchecked")
            ObjectStore<Counter> store = (ObjectStore<Counter>) driver.getStateStore(STORE);
            assertThat(store.persistedCopy()).containsOnlyKeys("a");
            assertThat(store.dirtyKeys()).isZero();
        }
    }

    /**
     * A task recycled to standby has its store below updated from the changelog while the objects sit idle; turned
     * active again, it must see the store below, not the objects it had when it left.
     */
    @Test
    void shouldForgetItsObjectsWhenKafkaStreamsClearsItsCache() {
        try (TopologyTestDriver driver = countingDriver()) {
            TestInputTopic<String, String> in = driver.createInputTopic("in", new StringSerializer(),
                    new StringSerializer());
            in.pipeInput("r", "a");
            @SuppressWarnings("unchecked")
            ObjectStore<Counter> store = (ObjectStore<Counter>) driver.getStateStore(STORE);
            Counter restored = new Counter();
            restored.n = 7; // what the active instance elsewhere wrote meanwhile, as a standby restores it
            store.wrapped().put("a", restored);
            store.clearCache();
            in.pipeInput("r", "a");
            assertThat(store.get("a").n).isEqualTo(8);
        }
    }
}
