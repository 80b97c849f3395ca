package io.rdmamon.alerts;

import io.rdmamon.model.Alert;
import io.rdmamon.model.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import static io.rdmamon.alerts.AlertFixtures.firing;
import static org.assertj.core.api.Assertions.assertThat;

/** The sender against a real HTTP server: batching, per-alert fallback on rejection, stop on failure. */
class HttpSenderTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    @ParameterizedTest
    @CsvSource({
            "200, ACCEPTED", "202, ACCEPTED", "204, ACCEPTED",
            "400, REJECTED", "413, REJECTED", "422, REJECTED", "409, REJECTED",
            "401, RETRY", "403, RETRY", "404, RETRY", "405, RETRY", "408, RETRY", "429, RETRY",
            "500, RETRY", "502, RETRY", "503, RETRY", "504, RETRY", "301, RETRY", "307, RETRY"})
    void shouldJudgeTheAnswerByItsStatus(int status, HttpSender.Verdict verdict) {
        assertThat(HttpSender.classify(status)).isEqualTo(verdict);
    }

    @Test
    void shouldRejectOnlyTheOffendingAlertsWhenABatchIsRejected() throws Exception {
        List<AlertMessage> alerts = IntStream.range(0, 5).mapToObj(i -> message(firing("i" + i, i == 3 ? "bad" : "ok")))
                .toList();
        try (RecordingWebhook server = new RecordingWebhook((attempt, request) -> request.body().contains("\"bad\"")
                ? new RecordingWebhook.Response(400, "invalid label") : RecordingWebhook.Response.OK)) {
            SendOutcome outcome = new HttpSender(batching(server.url(), 10), TIMEOUT).send(alerts);

            assertThat(outcome.complete()).isTrue();
            assertThat(outcome.handled()).isEqualTo(5);
            assertThat(outcome.rejections()).singleElement().satisfies(r -> {
                assertThat(r.index()).isEqualTo(3);
                assertThat(r.status()).isEqualTo(400);
                assertThat(r.reason()).isEqualTo("HTTP 400: invalid label");
            });
            assertThat(server.attempts()).isEqualTo(1 + 5); // the batch, then one by one
        }
    }

    @Test
    void shouldStopAtTheFirstFailureAndReportWhatWasDone() throws Exception {
        List<AlertMessage> alerts = IntStream.range(0, 5).mapToObj(i -> message(firing("i" + i, "j"))).toList();
        try (RecordingWebhook server = new RecordingWebhook((attempt, request) -> attempt <= 2
                ? RecordingWebhook.Response.OK : new RecordingWebhook.Response(503, "overloaded"))) {
            SendOutcome outcome = new HttpSender(batching(server.url(), 2), TIMEOUT).send(alerts);

            assertThat(outcome.complete()).isFalse();
            assertThat(outcome.handled()).isEqualTo(4);
            assertThat(outcome.failure()).isEqualTo("HTTP 503: overloaded");
        }
    }

    @Test
    void shouldAskForARetryWhenNothingListens() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        SendOutcome outcome = new HttpSender(batching(URI.create("http://127.0.0.1:" + port + "/"), 10), TIMEOUT)
                .send(List.of(message(firing("i1", "j"))));

        assertThat(outcome.handled()).isZero();
        assertThat(outcome.failure()).contains("ConnectException");
    }

    private static AlertMessage message(Alert alert) {
        return new AlertMessage(alert, Json.toBytes(alert));
    }

    /** A receiver posting a JSON array of up to {@code maxBatch} alerts, like Alertmanager's. */
    private static Receiver batching(URI url, int maxBatch) {
        return new Receiver() {
            @Override
            public String name() {
                return "test";
            }

            @Override
            public String describe() {
                return url.toString();
            }

            @Override
            public int maxBatch() {
                return maxBatch;
            }

            @Override
            public boolean needsResend() {
                return false;
            }

            @Override
            public java.net.http.HttpRequest request(List<AlertMessage> alerts) {
                return java.net.http.HttpRequest.newBuilder(url)
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                                Json.toString(alerts.stream().map(AlertMessage::alert).toList())))
                        .build();
            }
        };
    }
}
