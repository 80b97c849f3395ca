package io.rdmamon.sink;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import com.sun.net.httpserver.HttpServer;
import io.rdmamon.influx.InfluxSetup;
import io.rdmamon.influx.InfluxSettings;
import io.rdmamon.influx.InfluxdProcess;
import io.rdmamon.model.PortSample;
import io.rdmamon.testing.LocalInfluxd;
import org.influxdb.InfluxDB;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Authentication against real servers: influxd 1.x with {@code auth-enabled = true} (user and password), and a
 * token-checking proxy in front of influxd standing in for InfluxDB 2.x / 3 Core ({@code Authorization: Token}).
 * Every secret, right or wrong, stays out of every log line.
 */
class InfluxSinkAuthTest {
    private static final long TS = Instant.now().minus(10, ChronoUnit.MINUTES).toEpochMilli();

    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private Level rootLevel;

    @BeforeEach
    void captureLogs() {
        rootLevel = root.getLevel();
        root.setLevel(Level.DEBUG);
        logs.start();
        root.addAppender(logs);
    }

    @AfterEach
    void releaseLogs() {
        root.detachAppender(logs);
        root.setLevel(rootLevel);
    }

    @Test
    void shouldWriteWithAPasswordAndNeverLogItWhenAuthenticationIsOn(@TempDir Path dir) throws Exception {
        String password = "pw-" + UUID.randomUUID();
        String wrong = "wrong-" + UUID.randomUUID();
        try (InfluxdProcess influxd = LocalInfluxd.start(true)) {
            createAdmin(influxd, "admin", password);
            Path passwordFile = Files.writeString(dir.resolve("influx-password"), password + "\n");
            try (SinkFixture fixture = new SinkFixture(influxd)) {
                Map<String, Object> base = fixture.settings(Map.of(InfluxSettings.USERNAME_CONFIG, "admin"));
                Map<String, Object> withFile = new HashMap<>(base);
                withFile.put(InfluxSettings.PASSWORD_FILE_CONFIG, passwordFile.toString());
                InfluxSettings adminSettings = new SinkConfig(withFile).influx();
                try (InfluxDB admin = adminSettings.connect()) {
                    new InfluxSetup(admin, adminSettings).apply();

                    fixture.startSink(SinkConfig.load(null, Map.of("RDMAMON_INFLUX_PASSWORD", wrong), base));
                    fixture.send(fixture.portTopic, "n1/mlx5_0/1", sample());
                    fixture.flush();
                    await().atMost(Duration.ofSeconds(30)).until(() -> fixture.counter("rdmamon.sink.retries") >= 2);
                    fixture.stopSink();
                    assertThat(LocalInfluxd.count(admin, fixture.database, "rp_raw", "rdma_port", "state")).isZero();
                    assertThat(messages()).anySatisfy(m -> assertThat(m).contains("authorization failed"));

                    fixture.startSink(SinkConfig.load(null, Map.of("RDMAMON_INFLUX_PASSWORD", password), base));
                    await().atMost(Duration.ofSeconds(30)).until(() ->
                            LocalInfluxd.count(admin, fixture.database, "rp_raw", "rdma_port", "state") == 1);
                }
            }
        }
        assertThat(messages()).isNotEmpty().noneSatisfy(m -> assertThat(m).contains(password))
                .noneSatisfy(m -> assertThat(m).contains(wrong));
    }

    @Test
    void shouldSendTheTokenAsHeaderAndNeverLogItWhenTheServerWantsAToken() throws Exception {
        String token = "tok-" + UUID.randomUUID();
        InfluxdProcess influxd = LocalInfluxd.shared();
        HttpServer proxy = tokenCheckingProxy(influxd, token);
        try (SinkFixture fixture = new SinkFixture(influxd).init()) {
            String proxyUrl = "http://127.0.0.1:" + proxy.getAddress().getPort();
            fixture.startSink(SinkConfig.load(null, Map.of("RDMAMON_INFLUX_TOKEN", token),
                    fixture.settings(Map.of(InfluxSettings.URL_CONFIG, proxyUrl))));
            fixture.send(fixture.portTopic, "n1/mlx5_0/1", sample());
            fixture.flush();

            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.count("rdma_port", "state") == 1);
            HttpResponse<String> anonymous = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(proxyUrl + "/ping")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(anonymous.statusCode()).as("the proxy really checks the token").isEqualTo(401);
        } finally {
            proxy.stop(0);
        }
        assertThat(messages()).isNotEmpty().noneSatisfy(m -> assertThat(m).contains(token));
    }

    private List<String> messages() {
        return logs.list.stream().map(e -> e.getFormattedMessage()
                + (e.getThrowableProxy() == null ? "" : ThrowableProxyUtil.asString(e.getThrowableProxy()))).toList();
    }

    private static PortSample sample() {
        return new PortSample(1, "n1", "mlx5_0", 1, TS, 1000, "sysfs", "ACTIVE", null, null, null, 1.0, 1.0, null,
                null, null, null);
    }

    /** The first user of a 1.x server with authentication on may be created without credentials. */
    private static void createAdmin(InfluxdProcess influxd, String user, String password) throws Exception {
        String q = "CREATE USER \"" + user + "\" WITH PASSWORD '" + password + "' WITH ALL PRIVILEGES";
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(influxd.url() + "/query"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("q=" + java.net.URLEncoder.encode(q,
                        java.nio.charset.StandardCharsets.UTF_8))).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.body()).doesNotContain("error");
    }

    /** Answers 401 unless {@code Authorization: Token <token>}, else forwards the request to influxd unchanged. */
    private static HttpServer tokenCheckingProxy(InfluxdProcess influxd, String token) throws Exception {
        HttpClient upstream = HttpClient.newHttpClient();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            byte[] body;
            int status;
            if (!("Token " + token).equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
                status = 401;
                body = "{\"error\":\"authorization failed\"}".getBytes();
            } else {
                try (InputStream in = exchange.getRequestBody()) {
                    HttpRequest.Builder forward = HttpRequest.newBuilder(URI.create(influxd.url()
                            + exchange.getRequestURI()))
                            .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(in.readAllBytes()));
                    String type = exchange.getRequestHeaders().getFirst("Content-Type");
                    if (type != null) {
                        forward.header("Content-Type", type);
                    }
                    HttpResponse<byte[]> response = upstream.send(forward.build(),
                            HttpResponse.BodyHandlers.ofByteArray());
                    status = response.statusCode();
                    body = response.body();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    status = 502;
                    body = new byte[0];
                }
            }
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, status == 204 || body.length == 0 ? -1 : body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        return server;
    }
}
