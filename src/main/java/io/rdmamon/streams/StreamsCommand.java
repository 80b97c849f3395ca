package io.rdmamon.streams;

import io.rdmamon.access.AccessRefusedException;
import io.rdmamon.config.ConfigLoader;
import io.rdmamon.config.ConfigOptions;
import io.rdmamon.metrics.MetricsEndpoint;
import org.apache.kafka.streams.KafkaStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code rdmamon streams}: runs the stream application until SIGTERM/SIGINT (clean shutdown: state is flushed and
 * the exactly-once transaction committed) or until Kafka Streams fails for good (exit 1).
 */
@Command(name = "streams", mixinStandardHelpOptions = true,
        description = {"Join port samples with job metadata; publish per-job bandwidth, link health and alerts.",
                "Settings: defaults < --config FILE < RDMAMON_* environment < --set < flags; see "
                        + "'rdmamon config show streams'."})
public final class StreamsCommand implements Callable<Integer> {
    /** Logged when Kafka Streams has its tasks and processes (after start-up and after every rebalance). */
    public static final String RUNNING = "rdmamon streams running";
    private static final Logger log = LoggerFactory.getLogger(StreamsCommand.class);

    @Spec
    CommandSpec spec;

    @Mixin
    ConfigOptions options;

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT[,...]", description = "Kafka brokers.")
    String bootstrapServers;

    @Option(names = "--application-id", description = "Kafka Streams application.id (default rdmamon-streams).")
    String applicationId;

    @Option(names = "--state-dir", paramLabel = "DIR", description = "Local state directory.")
    String stateDir;

    @Option(names = "--metrics-port", paramLabel = "PORT", description = "Prometheus /metrics port; -1 disables.")
    Integer metricsPort;

    @Option(names = "--decode-only", hidden = true, description = "Run only the sources and sample decoding (the "
            + "floor that rdmamon bench streams --floor measures).")
    boolean decodeOnly;

    @Override
    public Integer call() throws Exception {
        Map<String, Object> flags = new HashMap<>();
        flags.put(StreamsAppConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        flags.put(StreamsAppConfig.APPLICATION_ID_CONFIG, applicationId);
        flags.put(StreamsAppConfig.STATE_DIR_CONFIG, stateDir);
        flags.put(StreamsAppConfig.METRICS_PORT_CONFIG, metricsPort);
        StreamsAppConfig cfg = new StreamsAppConfig(ConfigLoader.load(StreamsAppConfig.CONFIG_DEF, options.file,
                System.getenv(), options.withNamedFlags(flags), StreamsAppConfig.KAFKA_PREFIX));

        MetricsEndpoint endpoint = new MetricsEndpoint().serve(cfg.getString(StreamsAppConfig.METRICS_BIND_CONFIG),
                cfg.getInt(StreamsAppConfig.METRICS_PORT_CONFIG));
        StreamsApp app = new StreamsApp(cfg, endpoint.registry(), decodeOnly);
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicBoolean failed = new AtomicBoolean();
        Thread hook = new Thread(() -> {
            log.info("shutting down rdmamon streams");
            long closing = System.nanoTime();
            app.close();
            endpoint.close();
            log.info("rdmamon streams stopped ({} ms)", (System.nanoTime() - closing) / 1_000_000);
            stopped.countDown();
        }, "rdmamon-streams-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        long started = System.nanoTime();
        app.start((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                log.info("{} ({} ms after start)", RUNNING, (System.nanoTime() - started) / 1_000_000);
            }
            if (now == KafkaStreams.State.ERROR) {
                failed.set(true);
                stopped.countDown();
            }
        });
        stopped.await();
        if (failed.get()) {
            log.error("Kafka Streams stopped with an error; exiting");
            Runtime.getRuntime().removeShutdownHook(hook);
            app.close();
            endpoint.close();
            return app.refused().isPresent() ? AccessRefusedException.EXIT_CODE : 1;
        }
        return 0;
    }
}
