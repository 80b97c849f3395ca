package io.rdmamon.testing;

import com.fasterxml.jackson.databind.JsonNode;
import io.rdmamon.model.Json;
import io.rdmamon.support.FileTrees;
import io.rdmamon.support.Processes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real Alertmanager (Debian's {@code prometheus-alertmanager}, installed by {@code scripts/test}) on a loopback port,
 * with its own temporary storage and a route to a receiver that notifies nobody. Can be stopped and started again on
 * the same port; like a real restart, that loses the alerts it held (Alertmanager keeps them in memory only).
 */
public final class LocalAlertmanager implements AutoCloseable {
    public static final String BINARY = "prometheus-alertmanager";
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

    private final Path dir;
    private final int port;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private Process process;

    private LocalAlertmanager(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    /** A configured instance on a free port, not started yet (so a test can produce alerts while it is down). */
    public static LocalAlertmanager create() {
        try {
            Path dir = Files.createTempDirectory("alertmanager-");
            Files.writeString(dir.resolve("alertmanager.yml"), """
                    route:
                      receiver: nobody
                      group_wait: 1s
                    receivers:
                      - name: nobody
                    """);
            try (ServerSocket socket = new ServerSocket(0)) {
                return new LocalAlertmanager(dir, socket.getLocalPort());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@link #create()} and {@link #start()}. */
    public static LocalAlertmanager started() {
        return create().start();
    }

    public synchronized LocalAlertmanager start() {
        if (process != null && process.isAlive()) {
            return this;
        }
        try {
            process = new ProcessBuilder(BINARY,
                    "--config.file=" + dir.resolve("alertmanager.yml"),
                    "--storage.path=" + dir.resolve("data"),
                    "--web.listen-address=127.0.0.1:" + port,
                    "--cluster.listen-address=")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("alertmanager.log").toFile()))
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException(BINARY + " cannot be started (" + e.getMessage() + "): run scripts/test, "
                    + "which installs it (apt-get install -y prometheus-alertmanager)", e);
        }
        Processes.awaitHttp(process, BINARY, http, url().resolve("/-/ready"), 200, READY_TIMEOUT, this::log);
        return this;
    }

    public synchronized void stop() {
        if (process == null) {
            return;
        }
        Processes.stop(process, Duration.ofSeconds(10));
        process = null;
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** The alerts Alertmanager holds and reports as not resolved, matching a label filter like {@code job="x"}. */
    public List<JsonNode> alerts(String filter) {
        JsonNode array = getJson("/api/v2/alerts?filter=" + URLEncoder.encode(filter, StandardCharsets.UTF_8));
        List<JsonNode> out = new ArrayList<>();
        array.forEach(out::add);
        return out;
    }

    /** Alertmanager's own count of alerts posted to it with this status ({@code firing} or {@code resolved}). */
    public long receivedTotal(String status) {
        String prefix = "alertmanager_alerts_received_total{status=\"" + status + "\",version=\"v2\"} ";
        return get("/metrics").lines().filter(l -> l.startsWith(prefix))
                .mapToLong(l -> (long) Double.parseDouble(l.substring(prefix.length()).trim()))
                .findFirst().orElse(0);
    }

    @Override
    public void close() {
        stop();
        FileTrees.deleteQuietly(dir);
    }

    private JsonNode getJson(String path) {
        try {
            return Json.MAPPER.readTree(get(path));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String get(String path) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(url().resolve(path)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("GET " + path + ": HTTP " + response.statusCode() + " " + response.body());
            }
            return response.body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private String log() {
        try {
            return Files.readString(dir.resolve("alertmanager.log"));
        } catch (IOException e) {
            return "(no log)";
        }
    }
}
