package io.rdmamon.testing;

import io.rdmamon.support.KafkaOffsets;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

import java.util.Arrays;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;

/**
 * One real single-node KRaft broker per test JVM (started on first use, closed at JVM exit), because starting a
 * cluster costs seconds. Tests share it: each test must use its own topics ({@link #uniqueTopic}) and its own
 * application.id / group.id.
 */
public final class SharedKafka {
    private static KafkaClusterTestKit cluster;

    private SharedKafka() {
    }

    public static synchronized String bootstrapServers() {
        if (cluster == null) {
            cluster = start();
            KafkaClusterTestKit started = cluster;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    started.close();
                } catch (Exception ignored) {
                    // JVM is exiting
                }
            }, "shared-kafka-shutdown"));
        }
        return cluster.bootstrapServers();
    }

    /** A new, separately owned cluster (e.g. for a test that stops and restarts the broker); the caller closes it. */
    public static KafkaClusterTestKit start() {
        return start(Map.of());
    }

    /** {@link #start()} with extra broker/controller settings. */
    public static KafkaClusterTestKit start(Map<String, String> extraProps) {
        try {
            KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                    .setCombined(true)
                    .setNumBrokerNodes(1)
                    .setNumControllerNodes(1)
                    .build())
                    // one broker: internal topics must not ask for more replicas than exist
                    .setConfigProp("offsets.topic.replication.factor", "1")
                    .setConfigProp("offsets.topic.num.partitions", "4")
                    .setConfigProp("transaction.state.log.replication.factor", "1")
                    .setConfigProp("transaction.state.log.min.isr", "1")
                    .setConfigProp("transaction.state.log.num.partitions", "4")
                    .setConfigProp("group.initial.rebalance.delay.ms", "0");
            extraProps.forEach(builder::setConfigProp);
            KafkaClusterTestKit kit = builder.build();
            kit.format();
            kit.startup();
            kit.waitForReadyBrokers();
            return kit;
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the test Kafka cluster", e);
        }
    }

    /** The offsets {@code group} has committed on {@code topic}, summed over its partitions (0 without a commit). */
    public static long committed(String bootstrap, String group, String topic) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            return KafkaOffsets.committed(admin, group).entrySet().stream()
                    .filter(e -> e.getKey().topic().equals(topic))
                    .mapToLong(Map.Entry::getValue).sum();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot read committed offsets of " + group, e);
        }
    }

    public static String uniqueTopic(String base) {
        return base + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    public static void createTopics(String bootstrap, int partitions, String... topics) {
        createTopics(bootstrap, partitions, Map.of(), topics);
    }

    /** {@link #createTopics(String, int, String...)} with topic settings ({@code retention.ms}, ...). */
    public static void createTopics(String bootstrap, int partitions, Map<String, String> configs, String... topics) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            KafkaOffsets.createTopics(admin, Arrays.stream(topics).map(t -> new NewTopic(t, partitions, (short) 1)
                    .configs(configs)).toList());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot create topics " + Arrays.toString(topics), e);
        }
    }
}
