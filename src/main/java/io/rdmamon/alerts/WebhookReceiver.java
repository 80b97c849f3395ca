package io.rdmamon.alerts;

import org.apache.kafka.common.config.types.Password;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * POSTs every alert record as is (its exact JSON, one record per request) to a generic webhook. Headers let the
 * receiver drop the re-deliveries that follow a restart: {@code Idempotency-Key: <id>:<status>} is the same for every
 * delivery of one record, {@code X-Rdmamon-Incident: <id>} the same for the firing and the resolved of one incident.
 */
final class WebhookReceiver implements Receiver {
    static final String NAME = "webhook";
    static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    static final String INCIDENT_HEADER = "X-Rdmamon-Incident";

    private final URI url;
    private final Password token;
    private final Path tokenFile;
    private final Duration requestTimeout;

    /** @param token bearer token, or null; @param tokenFile file holding it, or null (read per request) */
    WebhookReceiver(URI url, Password token, Path tokenFile, Duration requestTimeout) {
        this.url = url;
        this.token = token;
        this.tokenFile = tokenFile;
        this.requestTimeout = requestTimeout;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String describe() {
        return "webhook " + Redact.url(url);
    }

    @Override
    public int maxBatch() {
        return 1;
    }

    @Override
    public boolean needsResend() {
        return false;
    }

    @Override
    public HttpRequest request(List<AlertMessage> alerts) throws IOException {
        if (alerts.size() != 1) {
            throw new IllegalArgumentException("the webhook takes one alert per request, got " + alerts.size());
        }
        AlertMessage message = alerts.get(0);
        HttpRequest.Builder builder = HttpRequest.newBuilder(url)
                .timeout(requestTimeout)
                .header("Content-Type", "application/json")
                .header(IDEMPOTENCY_KEY, message.id() + ":" + message.alert().status())
                .header(INCIDENT_HEADER, message.id())
                .POST(HttpRequest.BodyPublishers.ofByteArray(message.json()));
        String bearer = bearerToken();
        if (bearer != null) {
            builder.header("Authorization", "Bearer " + bearer);
        }
        return builder.build();
    }

    private String bearerToken() throws IOException {
        if (token != null) {
            return token.value();
        }
        if (tokenFile == null) {
            return null;
        }
        String value;
        try {
            value = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            // the message names the file, never its content
            throw new IOException("cannot read the webhook token file " + tokenFile + ": " + e, e);
        }
        if (value.isEmpty()) {
            throw new IOException("the webhook token file " + tokenFile + " is empty");
        }
        return value;
    }
}
