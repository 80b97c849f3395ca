package io.rdmamon.scenario;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.List;

/**
 * A scenario's {@code truth.json}: its name and description, the seed it was generated with, the event-time span of
 * its samples [{@code startMs}, {@code endMs}), and its labelled {@link Incident}s. A scenario without incidents of
 * some type is a negative for that type: any such alert is a false positive.
 */
@JsonPropertyOrder({"v", "scenario", "description", "seed", "startMs", "endMs", "incidents"})
public record GroundTruth(int v, String scenario, String description, long seed, long startMs, long endMs,
                          List<Incident> incidents) {

    public static final int VERSION = 1;

    public GroundTruth {
        incidents = incidents == null ? List.of() : List.copyOf(incidents);
    }
}
