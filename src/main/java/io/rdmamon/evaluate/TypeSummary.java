package io.rdmamon.evaluate;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.rdmamon.model.Alert;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One alert type's figures over all scenarios: true positives (incidents reported), false positives, misses,
 * duplicates, tolerated alerts, and detection latency from ground-truth onset to {@code detectedAt} (nearest-rank
 * median and p95, max; null without hits).
 */
@JsonPropertyOrder({"type", "truePositives", "falsePositives", "misses", "duplicates", "tolerated",
        "latencyMedianMs", "latencyP95Ms", "latencyMaxMs"})
public record TypeSummary(String type, int truePositives, int falsePositives, int misses, int duplicates,
                          int tolerated, Long latencyMedianMs, Long latencyP95Ms, Long latencyMaxMs) {

    /** The alert types in report order: the documented ones first, then any other type seen. */
    static final List<String> KNOWN_TYPES = List.of(Alert.STALLED_SYNC, Alert.STRAGGLER, Alert.LINK_DOWN,
            Alert.LINK_DEGRADED, Alert.LINK_IDLE, Alert.COLLECTOR_SILENT, Alert.TCP_FALLBACK);

    public static List<TypeSummary> of(List<ScenarioScore> scores) {
        Set<String> types = new LinkedHashSet<>(KNOWN_TYPES);
        for (ScenarioScore s : scores) {
            s.falsePositives().forEach(a -> types.add(a.type()));
            s.tolerated().forEach(a -> types.add(a.type()));
        }
        List<TypeSummary> out = new ArrayList<>();
        for (String type : types) {
            List<Long> latencies = new ArrayList<>();
            int fp = 0;
            int misses = 0;
            int dup = 0;
            int tolerated = 0;
            for (ScenarioScore s : scores) {
                s.hits().stream().filter(h -> type.equals(h.incident().type()))
                        .forEach(h -> latencies.add(h.latencyMs()));
                misses += (int) s.misses().stream().filter(i -> type.equals(i.type())).count();
                fp += (int) s.falsePositives().stream().filter(a -> type.equals(a.type())).count();
                dup += (int) s.duplicates().stream().filter(a -> type.equals(a.type())).count();
                tolerated += (int) s.tolerated().stream().filter(a -> type.equals(a.type())).count();
            }
            latencies.sort(null);
            out.add(new TypeSummary(type, latencies.size(), fp, misses, dup, tolerated, percentile(latencies, 50),
                    percentile(latencies, 95), latencies.isEmpty() ? null : latencies.get(latencies.size() - 1)));
        }
        return out;
    }

    /** Nearest-rank percentile of a sorted list: the smallest value with at least p % of values at or below it. */
    static Long percentile(List<Long> sorted, int p) {
        if (sorted.isEmpty()) {
            return null;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, rank - 1));
    }
}
