package io.rdmamon.replay;

/**
 * One input record: the topic it goes to, key and value exactly as read, its timestamp, and where it came from
 * ({@code file:line}, for messages and for a stable order among equal timestamps).
 */
public record ReplayRecord(InputKind kind, String key, String value, long timestamp, String origin,
                           int sourceIndex, long line) {
}
