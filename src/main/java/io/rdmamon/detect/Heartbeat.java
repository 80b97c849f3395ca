package io.rdmamon.detect;

/** A sign of life of a node's collector: the event time of one of its samples and the collector's interval. */
public record Heartbeat(String node, long ts, long intervalMs) {
}
