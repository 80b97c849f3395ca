package io.rdmamon.collector;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** {@code collector --once}: records as JSON lines on stdout, no Kafka — what an operator runs to see what rdmamon sees. */
public final class StdoutSink implements SampleSink {
    private final PrintStream out;

    public StdoutSink(PrintStream out) {
        this.out = out;
    }

    @Override
    public void publish(String topic, String key, long timestampMs, byte[] value) {
        out.println(new String(value, StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        out.flush();
    }
}
