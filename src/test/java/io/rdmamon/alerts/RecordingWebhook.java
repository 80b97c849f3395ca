package io.rdmamon.alerts;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * A webhook receiver on a loopback port (the JDK's HTTP server): answers each POST with the status chosen by the
 * test and records the requests it accepted (2xx).
 */
final class RecordingWebhook implements AutoCloseable {
    /** The status and body to answer, from the attempt number (from 1) and the request. */
    interface Answer extends BiFunction<Integer, Request, Response> {
    }

    record Request(String body, String authorization, String idempotencyKey, String incident) {
    }

    record Response(int status, String body) {
        static final Response OK = new Response(200, "");
    }

    private final HttpServer server;
    private final List<Request> accepted = new ArrayList<>();
    private final AtomicInteger attempts = new AtomicInteger();

    RecordingWebhook(Answer answer) {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/hook", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            var headers = exchange.getRequestHeaders();
            Request request = new Request(body, headers.getFirst("Authorization"),
                    headers.getFirst(WebhookReceiver.IDEMPOTENCY_KEY), headers.getFirst(WebhookReceiver.INCIDENT_HEADER));
            Response response = answer.apply(attempts.incrementAndGet(), request);
            if (response.status() / 100 == 2) {
                synchronized (accepted) {
                    accepted.add(request);
                }
            }
            byte[] out = response.body().getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(response.status(), out.length == 0 ? -1 : out.length);
            try (OutputStream os = exchange.getResponseBody()) {
                os.write(out);
            }
        });
        server.start();
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hook?key=secret-in-url");
    }

    List<Request> accepted() {
        synchronized (accepted) {
            return List.copyOf(accepted);
        }
    }

    List<String> acceptedBodies() {
        return accepted().stream().map(Request::body).toList();
    }

    int attempts() {
        return attempts.get();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
