package io.rdmamon.detect;

/**
 * A detector's verdict on one subject at event time {@code at}: the condition holds ({@code condition} set) or it
 * no longer does ({@code condition} null; {@code at} is then when it ended, the alert's {@code endsAt}).
 */
public record Observation(Subject subject, Condition condition, long at) {
    public static Observation holds(Subject subject, Condition condition, long at) {
        return new Observation(subject, condition, at);
    }

    public static Observation cleared(Subject subject, long at) {
        return new Observation(subject, null, at);
    }
}
