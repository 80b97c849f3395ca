package io.rdmamon.evaluate;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.rdmamon.model.Alert;
import io.rdmamon.scenario.Incident;

import java.util.List;

/**
 * How one scenario's alerts compare with its ground truth. {@code hits}: required incidents reported, with the first
 * matching alert; {@code misses}: required incidents never reported; {@code falsePositives}: firing alerts that report
 * no incident (or one that must not be alerted); {@code duplicates}: further alerts for an incident already hit;
 * {@code tolerated}: alerts for incidents that may be reported.
 */
public record ScenarioScore(String scenario, List<Hit> hits, List<Incident> misses, List<Alert> falsePositives,
                            List<Alert> duplicates, List<Alert> tolerated) {

    public ScenarioScore {
        hits = List.copyOf(hits);
        misses = List.copyOf(misses);
        falsePositives = List.copyOf(falsePositives);
        duplicates = List.copyOf(duplicates);
        tolerated = List.copyOf(tolerated);
    }

    /** The same score under another name, e.g. the scenario's folder ({@code hang-seed2}). */
    public ScenarioScore named(String name) {
        return new ScenarioScore(name, hits, misses, falsePositives, duplicates, tolerated);
    }

    /** Hits that came later than their incident's {@code maxLatencyMs}. */
    @JsonProperty("late")
    public List<Hit> late() {
        return hits.stream().filter(Hit::late).toList();
    }

    /** A reported incident: latency from its onset to the first matching alert's {@code detectedAt}. */
    public record Hit(Incident incident, Alert alert) {
        @JsonProperty("latencyMs")
        public long latencyMs() {
            return alert.detectedAt() - incident.onsetMs();
        }

        public boolean late() {
            return incident.maxLatencyMs() != null && latencyMs() > incident.maxLatencyMs();
        }
    }
}
