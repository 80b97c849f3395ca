package io.rdmamon.alerts;

import io.rdmamon.model.Json;

import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * Posts alerts to one Alertmanager instance through its v2 API ({@code POST /api/v2/alerts}), the way Prometheus
 * does: firing alerts carry {@code endsAt = now + 4 x resend interval} and are re-posted every interval while active;
 * resolved alerts carry their real {@code endsAt}, which resolves them. Mapping in {@link AlertmanagerAlert}.
 */
final class AlertmanagerReceiver implements Receiver {
    static final String API_PATH = "/api/v2/alerts";
    /** Resends of hundreds of active incidents go in a few requests, while one request stays small. */
    static final int MAX_BATCH = 100;
    /** As Prometheus: four missed resends before Alertmanager resolves an alert by itself. */
    static final int HORIZON_RESENDS = 4;

    private final String name;
    private final URI endpoint;
    private final Duration horizon;
    private final Duration requestTimeout;
    private final GeneratorLink link;
    private final Clock clock;

    AlertmanagerReceiver(String name, URI baseUrl, Duration resendInterval, Duration requestTimeout,
                         GeneratorLink link, Clock clock) {
        this.name = name;
        this.endpoint = endpoint(baseUrl);
        this.horizon = resendInterval.multipliedBy(HORIZON_RESENDS);
        this.requestTimeout = requestTimeout;
        this.link = link;
        this.clock = clock;
    }

    /** Accepts both the base URL ({@code http://am:9093}) and the full API URL. */
    static URI endpoint(URI baseUrl) {
        String url = baseUrl.toString().replaceAll("/+$", "");
        return URI.create(url.endsWith(API_PATH) ? url : url + API_PATH);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String describe() {
        return "Alertmanager " + Redact.url(endpoint);
    }

    @Override
    public int maxBatch() {
        return MAX_BATCH;
    }

    @Override
    public boolean needsResend() {
        return true;
    }

    @Override
    public HttpRequest request(List<AlertMessage> alerts) {
        var now = clock.instant();
        List<AlertmanagerAlert> body = alerts.stream()
                .map(m -> AlertmanagerAlert.of(m.alert(), now, horizon, link))
                .toList();
        return HttpRequest.newBuilder(endpoint)
                .timeout(requestTimeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(Json.toBytes(body)))
                .build();
    }
}
