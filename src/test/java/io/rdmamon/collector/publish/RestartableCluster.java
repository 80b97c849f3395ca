package io.rdmamon.collector.publish;

import io.rdmamon.testing.SharedKafka;
import kafka.server.BrokerServer;
import org.apache.kafka.common.test.KafkaClusterTestKit;

import java.util.Map;

/** A one-broker KRaft cluster of a test's own, whose broker the test stops and starts again: a broker outage. */
final class RestartableCluster implements AutoCloseable {
    private final KafkaClusterTestKit cluster;

    private RestartableCluster(KafkaClusterTestKit cluster) {
        this.cluster = cluster;
    }

    static RestartableCluster start() {
        // a restarted broker is fenced until the controller gives up its old session: keep that short
        return new RestartableCluster(SharedKafka.start(Map.of("broker.session.timeout.ms", "2000",
                "broker.heartbeat.interval.ms", "500")));
    }

    String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    private BrokerServer broker() {
        return cluster.brokers().values().iterator().next();
    }

    void stopBroker() {
        broker().shutdown();
        broker().awaitShutdown();
    }

    /** Same port (the test kit rebinds it), same log directory: the broker the producer knew comes back. */
    void startBroker() throws Exception {
        broker().startup();
        cluster.waitForReadyBrokers();
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
