package io.rdmamon.sink;

import io.rdmamon.config.ConfigOptions;
import io.rdmamon.metrics.MetricsEndpoint;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

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
            sink.run();
        }
        return 0;
    }
}
