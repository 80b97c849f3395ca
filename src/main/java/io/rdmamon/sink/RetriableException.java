package io.rdmamon.sink;

/** A delivery (InfluxDB write, dead-letter send) that failed but may succeed later: the sink backs off and retries. */
final class RetriableException extends RuntimeException {
    RetriableException(String message, Throwable cause) {
        super(message, cause);
    }
}
