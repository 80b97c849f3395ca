package io.rdmamon.sim;

/**
 * A stretch of the job's life with a traffic shape other than training, e.g. an evaluation pass: lower level, other
 * period. From {@code fromMs} (inclusive) to {@code untilMs} (exclusive).
 */
public record Phase(String name, long fromMs, long untilMs, TrafficProfile profile) {

    public boolean covers(long t) {
        return t >= fromMs && t < untilMs;
    }
}
