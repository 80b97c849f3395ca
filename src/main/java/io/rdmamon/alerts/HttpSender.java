package io.rdmamon.alerts;

import io.rdmamon.support.Excerpt;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Sends alerts to one receiver in order, in requests of up to {@link Receiver#maxBatch()} alerts, and judges each
 * answer: 2xx accepted; a rejection of the record itself (400, 413, 422 and other 4xx) is final; anything that says
 * the receiver is unavailable or misconfigured (no connection, timeout, 5xx, 408, 429, 401, 403, 404, 405, 3xx) is
 * worth a retry and stops the send. When a batch is rejected it is re-sent alert by alert, so only the offending
 * alerts are rejected (Alertmanager stores the valid alerts of a rejected batch anyway; sending them again is
 * harmless).
 */
final class HttpSender {
    static final int MAX_BODY_CHARS = 2_000;

    private final Receiver receiver;
    private final HttpClient client;

    HttpSender(Receiver receiver, Duration connectTimeout) {
        this.receiver = receiver;
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    Receiver receiver() {
        return receiver;
    }

    /** Sends {@code messages} from the first on; stops at the first answer that calls for a retry. */
    SendOutcome send(List<AlertMessage> messages) throws InterruptedException {
        List<SendOutcome.Rejection> rejections = new ArrayList<>();
        int done = 0;
        while (done < messages.size()) {
            List<AlertMessage> chunk = messages.subList(done, Math.min(messages.size(), done + receiver.maxBatch()));
            Answer answer = post(chunk);
            if (answer.verdict == Verdict.RETRY) {
                return new SendOutcome(done, rejections, answer.text());
            }
            if (answer.verdict == Verdict.ACCEPTED) {
                done += chunk.size();
            } else if (chunk.size() == 1) {
                rejections.add(new SendOutcome.Rejection(done, answer.status, answer.text()));
                done++;
            } else {
                for (AlertMessage single : chunk) {
                    Answer one = post(List.of(single));
                    if (one.verdict == Verdict.RETRY) {
                        return new SendOutcome(done, rejections, one.text());
                    }
                    if (one.verdict == Verdict.REJECTED) {
                        rejections.add(new SendOutcome.Rejection(done, one.status, one.text()));
                    }
                    done++;
                }
            }
        }
        return new SendOutcome(done, rejections, null);
    }

    private Answer post(List<AlertMessage> chunk) throws InterruptedException {
        try {
            HttpResponse<String> response = client.send(receiver.request(chunk),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Answer(classify(response.statusCode()), response.statusCode(), truncate(response.body()));
        } catch (IOException e) {
            return new Answer(Verdict.RETRY, 0, e.getClass().getSimpleName() + (e.getMessage() == null ? ""
                    : ": " + e.getMessage()));
        }
    }

    enum Verdict { ACCEPTED, REJECTED, RETRY }

    /**
     * 4xx answers that do not blame the record: authentication, a wrong URL, throttling. Retrying, rather than
     * dead-lettering every alert while the operator fixes the configuration, loses nothing.
     */
    private static final Set<Integer> RECEIVER_SIDE_4XX = Set.of(401, 403, 404, 405, 407, 408, 421, 425, 429);

    static Verdict classify(int status) {
        if (status >= 200 && status < 300) {
            return Verdict.ACCEPTED;
        }
        if (status >= 400 && status < 500 && !RECEIVER_SIDE_4XX.contains(status)) {
            return Verdict.REJECTED;
        }
        return Verdict.RETRY;
    }

    private static String truncate(String body) {
        if (body == null) {
            return "";
        }
        return Excerpt.of(body.strip(), MAX_BODY_CHARS);
    }

    private record Answer(Verdict verdict, int status, String body) {
        String text() {
            return status == 0 ? body : "HTTP " + status + (body.isEmpty() ? "" : ": " + body);
        }
    }
}
