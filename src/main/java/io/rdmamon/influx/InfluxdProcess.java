package io.rdmamon.influx;

import io.rdmamon.support.FileTrees;
import io.rdmamon.support.Processes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A private InfluxDB 1.x server ({@code influxd}, Debian package {@code influxdb}) on 127.0.0.1 with random free
 * ports and all its state (meta, data, wal) in one directory. For tests, the benchmark and the demo: never the
 * machine's own service. {@link #stop()} and {@link #start()} keep the port and the data, so an outage can be
 * simulated; {@link #close()} stops the server and deletes the directory.
 */
public final class InfluxdProcess implements AutoCloseable {
    /** Overrides where the binary is looked up (default: {@code influxd} on the PATH, then /usr/bin/influxd). */
    public static final String BINARY_ENV = "RDMAMON_INFLUXD";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Path binary;
    private final Path dir;
    private final boolean authEnabled;
    private final int httpPort;
    private final int rpcPort;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Thread shutdownHook;
    private Process process;

    private InfluxdProcess(Path binary, Path dir, boolean authEnabled) throws IOException {
        this.binary = binary;
        this.dir = dir;
        this.authEnabled = authEnabled;
        this.httpPort = freePort();
        this.rpcPort = freePort();
        // a child process outlives the JVM unless stopped: never leave a server behind after tests or the demo
        this.shutdownHook = new Thread(this::stop, "influxd-shutdown-" + httpPort);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** The {@code influxd} binary, if installed. */
    public static Optional<Path> findBinary() {
        String override = System.getenv(BINARY_ENV);
        if (override != null && !override.isBlank()) {
            return Optional.of(Path.of(override)).filter(Files::isExecutable);
        }
        String path = System.getenv().getOrDefault("PATH", "");
        return Stream.concat(Stream.of(path.split(java.io.File.pathSeparator)), Stream.of("/usr/bin", "/usr/sbin"))
                .filter(p -> !p.isBlank())
                .map(p -> Path.of(p, "influxd"))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /**
     * Starts a server in a new temporary directory; fails with an explanation when {@code influxd} is not installed.
     * With {@code authEnabled}, the HTTP API requires a user: create the first admin with {@code CREATE USER ...
     * WITH ALL PRIVILEGES} (allowed without credentials while no user exists).
     */
    public static InfluxdProcess startInTempDir(boolean authEnabled) {
        Path binary = findBinary().orElseThrow(() -> new IllegalStateException(
                "influxd not found (PATH, /usr/bin or $" + BINARY_ENV + "): install Debian's influxdb package "
                        + "(apt-get install -y influxdb); scripts/test does this"));
        try {
            InfluxdProcess influxd = new InfluxdProcess(binary, Files.createTempDirectory("rdmamon-influxd-"),
                    authEnabled);
            influxd.start();
            return influxd;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String url() {
        return "http://127.0.0.1:" + httpPort;
    }

    public int port() {
        return httpPort;
    }

    public Path dir() {
        return dir;
    }

    /** The running server's process id (for benchmarks that read its CPU time). */
    public synchronized long pid() {
        if (!isRunning()) {
            throw new IllegalStateException("influxd is not running");
        }
        return process.pid();
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Starts (again) on the same port and directory and waits until {@code /ping} answers. */
    public synchronized void start() {
        if (isRunning()) {
            return;
        }
        try {
            Path config = dir.resolve("influxdb.conf");
            Files.writeString(config, config());
            process = new ProcessBuilder(binary.toString(), "-config", config.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("influxd.log").toFile()))
                    .start();
            awaitPing();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops the server (SIGTERM, then SIGKILL after 20 s) and keeps its data. */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        Processes.stop(process, Duration.ofSeconds(20));
        process = null;
    }

    @Override
    public void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down
        }
        FileTrees.deleteQuietly(dir);
    }

    /** The last lines of the server's own log, for failure messages. */
    public String logTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve("influxd.log"), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(no influxd log: " + e.getMessage() + ")";
        }
    }

    private void awaitPing() {
        try {
            Processes.awaitHttp(process, "influxd", http, URI.create(url() + "/ping"), 204, START_TIMEOUT,
                    this::logTail);
        } catch (IllegalStateException e) {
            stop();
            throw e;
        }
    }

    /** Only the HTTP API, bound to loopback; every other listener and all phoning home off. */
    private String config() {
        return """
                reporting-disabled = true
                bind-address = "127.0.0.1:%d"
                [meta]
                  dir = "%s"
                [data]
                  dir = "%s"
                  wal-dir = "%s"
                  query-log-enabled = false
                  # the cache goes to TSM files after 5 s without writes (default 10 m), so that the sizing
                  # benchmark can read the disk a point takes
                  cache-snapshot-write-cold-duration = "5s"
                [monitor]
                  store-enabled = false
                [http]
                  enabled = true
                  bind-address = "127.0.0.1:%d"
                  auth-enabled = %s
                  log-enabled = false
                [logging]
                  level = "warn"
                [continuous_queries]
                  enabled = true
                  log-enabled = false
                [subscriber]
                  enabled = false
                [[udp]]
                  enabled = false
                [[graphite]]
                  enabled = false
                [[collectd]]
                  enabled = false
                [[opentsdb]]
                  enabled = false
                """.formatted(rpcPort, dir.resolve("meta"), dir.resolve("data"), dir.resolve("wal"), httpPort,
                authEnabled);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
    }
}
