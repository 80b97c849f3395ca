package io.rdmamon.collector;

/**
 * Where the collector's records go: Kafka in production, stdout for {@code --once}. {@link #publish} must never block
 * the sampling loop: an implementation that talks to a network buffers and returns at once.
 */
public interface SampleSink extends AutoCloseable {
    void publish(String topic, String key, long timestampMs, byte[] value);

    @Override
    void close();
}
