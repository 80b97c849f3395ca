package io.rdmamon.metrics;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A role's self-metrics: a Prometheus registry served as text on {@code http://host:port/metrics}, and its readiness
 * on {@code /ready}.
 */
public final class MetricsEndpoint implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MetricsEndpoint.class);

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gcMetrics = new JvmGcMetrics();
    private HttpServer server;
    private volatile Supplier<Optional<String>> notReady = Optional::empty;

    public MetricsEndpoint() {
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        gcMetrics.bindTo(registry);
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Serves /metrics on {@code bindAddress:port}; a port below 0 disables it, 0 picks a free port. */
    public MetricsEndpoint serve(String bindAddress, int port) throws IOException {
        if (port < 0) {
            return this;
        }
        server = HttpServer.create(new InetSocketAddress(bindAddress, port), 0);
        server.createContext("/metrics", exchange -> {
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        // readiness probe: 200 "ready", or 503 and why not (a role that holds its data while it cannot deliver it)
        server.createContext("/ready", exchange -> {
            Optional<String> reason = notReady.get();
            byte[] body = (reason.orElse("ready") + "\n").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            exchange.sendResponseHeaders(reason.isPresent() ? 503 : 200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        log.info("metrics on http://{}:{}/metrics", bindAddress, port());
        return this;
    }

    /** What /ready answers: not ready, with the reason, while {@code notReady} gives one. */
    public MetricsEndpoint readiness(Supplier<Optional<String>> notReady) {
        this.notReady = notReady;
        return this;
    }

    /** The port actually bound, or -1 when not serving. */
    public int port() {
        return server == null ? -1 : server.getAddress().getPort();
    }

    @Override
    public void close() {
        if (server != null) {
            server.stop(0);
        }
        gcMetrics.close();
        registry.close();
    }
}
