package io.rdmamon.support;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** Starting and stopping the servers tests, benchmarks and the demo run as child processes (influxd, Alertmanager). */
public final class Processes {
    private static final Duration KILL_WAIT = Duration.ofSeconds(10);
    private static final Duration READY_POLL = Duration.ofMillis(50);

    private Processes() {
    }

    /** SIGTERM, then SIGKILL if {@code process} has not exited after {@code grace}; an interrupt kills at once. */
    public static void stop(Process process, Duration grace) {
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits until a GET of {@code uri} answers {@code status}. Fails, with {@code log} (the server's own output) in
     * the message, when {@code process} exits first or {@code timeout} passes; the process is left as it is.
     */
    public static void awaitHttp(Process process, String name, HttpClient http, URI uri, int status,
                                 Duration timeout, Supplier<String> log) {
        long deadline = System.nanoTime() + timeout.toNanos();
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).build();
        try {
            while (System.nanoTime() < deadline) {
                if (!process.isAlive()) {
                    throw new IllegalStateException(name + " exited with " + process.exitValue() + " during start:\n"
                            + log.get());
                }
                try {
                    if (http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == status) {
                        return;
                    }
                } catch (IOException e) {
                    // not listening yet
                }
                Thread.sleep(READY_POLL.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + name, e);
        }
        throw new IllegalStateException(name + " did not answer " + uri + " within " + timeout + ":\n" + log.get());
    }
}
