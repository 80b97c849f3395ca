package io.rdmamon.detect;

import java.util.Map;

/**
 * A condition that holds: since when (event time, becomes the alert's {@code startsAt}), how bad, and what to tell
 * the operator.
 */
public record Condition(long since, String severity, String summary, Map<String, String> labels) {
    public static final String CRITICAL = "critical";
    public static final String WARNING = "warning";
    public static final String INFO = "info";

    public Condition {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }
}
