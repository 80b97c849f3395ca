package io.rdmamon.support;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A single-node KRaft Kafka (broker and controller in one), running in this JVM: the demo's "no other service needed"
 * default. Same broker code as a production Kafka, formatted into a directory of its own.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {
    private final KafkaRaftServer server;
    private final String bootstrapServers;

    private EmbeddedKafkaBroker(KafkaRaftServer server, String bootstrapServers) {
        this.server = server;
        this.bootstrapServers = bootstrapServers;
    }

    /** Formats {@code logDir} (which must be empty or absent) and starts the broker on {@code port} (0 = any free port). */
    public static EmbeddedKafkaBroker start(Path logDir, int port) throws Exception {
        return start(logDir, port, "PLAINTEXT", Map.of(), List.of());
    }

    /**
     * {@link #start(Path, int)} with its client (and inter-broker) listener on {@code protocol} (e.g. SASL_SSL),
     * {@code settings} over the defaults (TLS, SASL, authorizer), and SCRAM credentials stored at format time in
     * kafka-storage's form ({@code SCRAM-SHA-512=[name=alice,password=...]}), so that a locked-down broker has its
     * users before it starts. The controller listener stays PLAINTEXT on 127.0.0.1.
     */
    public static EmbeddedKafkaBroker start(Path logDir, int port, String protocol, Map<String, String> settings,
                                            List<String> scramCredentials) throws Exception {
        Files.createDirectories(logDir);
        int brokerPort = port == 0 ? freePort() : port;
        int controllerPort = freePort();
        Properties props = new Properties();
        props.put("process.roles", "broker,controller");
        props.put("node.id", "1");
        props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        props.put("listeners", protocol + "://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        props.put("advertised.listeners", protocol + "://127.0.0.1:" + brokerPort);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("inter.broker.listener.name", protocol);
        props.put("listener.security.protocol.map", protocol + ":" + protocol + ",CONTROLLER:PLAINTEXT");
        props.put("log.dirs", logDir.toString());
        // one broker: internal topics must not ask for replicas that do not exist
        props.put("offsets.topic.replication.factor", "1");
        props.put("offsets.topic.num.partitions", "4");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("transaction.state.log.num.partitions", "4");
        props.put("share.coordinator.state.topic.replication.factor", "1");
        props.put("share.coordinator.state.topic.min.isr", "1");
        props.put("group.initial.rebalance.delay.ms", "0");
        props.put("num.partitions", "4");
        props.putAll(settings);
        KafkaConfig config = new KafkaConfig(props, false);

        new Formatter()
                .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                .setNodeId(1)
                .setClusterId(Uuid.randomUuid().toString())
                .setDirectories(List.of(logDir.toString()))
                .setMetadataLogDirectory(logDir.toString())
                .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
                .setControllerListenerName("CONTROLLER")
                .setScramArguments(scramCredentials)
                .run();

        KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
        server.startup();
        return new EmbeddedKafkaBroker(server, "127.0.0.1:" + brokerPort);
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
