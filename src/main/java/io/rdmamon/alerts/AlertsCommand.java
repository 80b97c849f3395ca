package io.rdmamon.alerts;

import io.rdmamon.access.AccessRefusedException;
import io.rdmamon.config.ConfigOptions;
import io.rdmamon.metrics.MetricsEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code rdmamon alerts}: delivers {@code rdma.alerts} to Alertmanager and/or a webhook until stopped. */
@Command(name = "alerts", mixinStandardHelpOptions = true,
        description = {"Deliver the alerts topic to Alertmanager (v2 API) and/or a generic webhook.",
                "Settings: defaults < --config file < RDMAMON_* environment < --set < flags; see 'rdmamon config show alerts'."})
public final class AlertsCommand implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(AlertsCommand.class);

    @Mixin
    ConfigOptions options;

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT,...", description = "Kafka brokers (kafka.bootstrap.servers).")
    String bootstrapServers;

    @Option(names = "--alertmanager-url", paramLabel = "URL,...", description = "Alertmanager base URL(s) ("
            + AlertsConfig.ALERTMANAGER_URL_CONFIG + ").")
    String alertmanagerUrl;

    @Option(names = "--webhook-url", paramLabel = "URL", description = "Webhook URL (" + AlertsConfig.WEBHOOK_URL_CONFIG + ").")
    String webhookUrl;

    @Override
    public Integer call() throws Exception {
        Map<String, Object> flags = new HashMap<>();
        flags.put(AlertsConfig.KAFKA_PREFIX + "bootstrap.servers", bootstrapServers);
        flags.put(AlertsConfig.ALERTMANAGER_URL_CONFIG, alertmanagerUrl);
        flags.put(AlertsConfig.WEBHOOK_URL_CONFIG, webhookUrl);
        AlertsConfig config = AlertsConfig.load(options.file, System.getenv(), options.withNamedFlags(flags));
        try (MetricsEndpoint metrics = new MetricsEndpoint();
             AlertDelivery delivery = AlertDelivery.start(config, metrics.registry())) {
            metrics.serve(config.getString(AlertsConfig.METRICS_BIND_CONFIG),
                    config.getInt(AlertsConfig.METRICS_PORT_CONFIG));
            // SIGTERM: stop delivering and commit what was delivered; the JVM exits when the hook returns
            Thread hook = new Thread(delivery::close, "alerts-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            delivery.awaitStop();
            if (!isShuttingDown(hook)) {
                if (delivery.refused().isPresent()) {
                    throw new AccessRefusedException(delivery.refused().get());
                }
                log.error("alert delivery ended unexpectedly; exiting so that the supervisor restarts it");
                return 1;
            }
            return 0;
        }
    }

    private static boolean isShuttingDown(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
            return false;
        } catch (IllegalStateException e) {
            return true;
        }
    }
}
