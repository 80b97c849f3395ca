package io.rdmamon.alerts;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.util.List;

/** Where alerts go: builds the HTTP request for a batch; {@link HttpSender} sends it and judges the answer. */
interface Receiver {
    /** Short name: the metrics tag, the consumer group suffix and the dead-letter header. */
    String name();

    /** Target for logs, without secrets. */
    String describe();

    /** Most alerts one request may carry. */
    int maxBatch();

    /** True when the receiver forgets firing alerts that are not re-posted (Alertmanager expires them at endsAt). */
    boolean needsResend();

    HttpRequest request(List<AlertMessage> alerts) throws IOException;
}
