package io.rdmamon.sink;

import io.rdmamon.access.AccessRefusedException;
import io.rdmamon.access.KafkaAccess;
import io.rdmamon.access.RoleAcls;
import io.rdmamon.config.ConfigOptions;
import io.rdmamon.metrics.MetricsEndpoint;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.Map;
import java.util.concurrent.Callable;

/** {@code rdmamon sink --config FILE}: runs {@link InfluxSink} until SIGTERM/SIGINT. */
@Command(name = "sink", mixinStandardHelpOptions = true,
        description = "Write port samples, host samples, job bandwidth, link health and alerts to InfluxDB.")
public final class SinkCommand implements Callable<Integer> {
    @Mixin
    ConfigOptions options;

    @Override
    public Integer call() throws Exception {
        SinkConfig config = SinkConfig.load(options.file, System.getenv(), options.overrides);
        try (MetricsEndpoint metrics = new MetricsEndpoint()
                .serve(config.metricsBindAddress(), config.metricsPort());
             InfluxSink sink = new InfluxSink(config, metrics.registry())) {
            Runtime.getRuntime().addShutdownHook(new Thread(sink::close, "sink-shutdown"));
            try {
                sink.run();
            } catch (RuntimeException e) {
                throw AccessRefusedException.of(access(config), e);
            }
        }
        return 0;
    }

    /** The sink's Kafka identity and the ACLs it needs (docs/deploy.md, "Kafka ACLs"), to say why Kafka refused it. */
    static KafkaAccess access(SinkConfig config) {
        Map<String, Object> consumer = config.consumerProps();
        return KafkaAccess.of(consumer, RoleAcls.sink(String.valueOf(consumer.get(ConsumerConfig.GROUP_ID_CONFIG)),
                config.inputTopics(), config.deadLetterTopic()));
    }
}
