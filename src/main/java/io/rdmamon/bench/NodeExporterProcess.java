package io.rdmamon.bench;

import io.rdmamon.support.Processes;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Prometheus node_exporter with only its infiniband collector, reading a given sysfs tree: the real alternative the
 * collector's footprint is compared with. Each {@link #scrape()} is one full collection, checked to have succeeded
 * and to hold port traffic (node_exporter 1.5 reports nothing when one value of the tree does not parse).
 */
final class NodeExporterProcess implements AutoCloseable {
    private static final String SUCCESS = "node_scrape_collector_success{collector=\"infiniband\"} 1";
    private static final String TRAFFIC = "node_infiniband_port_data_transmitted_bytes_total";

    private final Process process;
    private final URI metrics;
    private final HttpClient http = HttpClient.newHttpClient();

    private NodeExporterProcess(Process process, URI metrics) {
        this.process = process;
        this.metrics = metrics;
    }

    static NodeExporterProcess start(String binary, Path sysfs, Path log) throws IOException, InterruptedException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Process process = new ProcessBuilder(List.of(binary, "--path.sysfs=" + sysfs,
                "--collector.disable-defaults", "--collector.infiniband", "--web.listen-address=127.0.0.1:" + port))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        NodeExporterProcess exporter = new NodeExporterProcess(process, URI.create("http://127.0.0.1:" + port
                + "/metrics"));
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            try {
                exporter.scrape();
                return exporter;
            } catch (IOException e) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    exporter.close();
                    throw new IOException(binary + " did not answer on " + exporter.metrics + " (see " + log + ")", e);
                }
                Thread.sleep(100);
            }
        }
    }

    long pid() {
        return process.pid();
    }

    /** One scrape; fails unless the infiniband collector succeeded and reported port traffic. */
    void scrape() throws IOException, InterruptedException {
        String body = http.send(HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofString()).body();
        if (!body.contains(SUCCESS) || !body.contains(TRAFFIC)) {
            throw new IllegalStateException("node_exporter's infiniband collector failed or reported no traffic: "
                    + body.lines().filter(l -> l.contains("infiniband") && !l.startsWith("#")).limit(5).toList());
        }
    }

    @Override
    public void close() {
        Processes.stop(process, Duration.ofSeconds(10));
    }
}
