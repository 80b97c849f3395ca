package io.rdmamon.evaluate;

import io.rdmamon.model.Alert;
import io.rdmamon.scenario.GroundTruth;
import io.rdmamon.scenario.Incident;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Scores a scenario's alerts against its ground truth; a pure function. Only {@code firing} records count, each alert
 * id once (a repeated firing record of the same incident id is a restart artefact, not a new detection). Alerts are
 * taken in {@code detectedAt} order; each goes to the first matching required incident not yet hit, else to an
 * already hit one (duplicate), else to a tolerated one; an alert matching nothing, or only an incident that must not
 * be alerted, is a false positive.
 */
public final class Scoring {
    private Scoring() {
    }

    public static ScenarioScore score(GroundTruth truth, List<Alert> alerts, IncidentMatcher matcher) {
        Set<String> seenIds = new HashSet<>();
        List<Alert> firing = alerts.stream()
                .filter(a -> Alert.FIRING.equals(a.status()))
                .filter(a -> a.id() == null || seenIds.add(a.id()))
                .sorted(Comparator.comparingLong(Alert::detectedAt))
                .toList();
        Map<Incident, Alert> firstHit = new IdentityHashMap<>();
        List<Alert> falsePositives = new ArrayList<>();
        List<Alert> duplicates = new ArrayList<>();
        List<Alert> tolerated = new ArrayList<>();
        for (Alert alert : firing) {
            List<Incident> matching = truth.incidents().stream()
                    .filter(i -> matcher.matches(i, alert, truth.endMs())).toList();
            Incident fresh = matching.stream().filter(Incident::required).filter(i -> !firstHit.containsKey(i))
                    .findFirst().orElse(null);
            if (fresh != null) {
                firstHit.put(fresh, alert);
            } else if (matching.stream().anyMatch(Incident::required)) {
                duplicates.add(alert);
            } else if (matching.stream().anyMatch(i -> Incident.TOLERATE.equals(i.expect()))) {
                tolerated.add(alert);
            } else {
                falsePositives.add(alert);
            }
        }
        List<ScenarioScore.Hit> hits = new ArrayList<>();
        List<Incident> misses = new ArrayList<>();
        for (Incident incident : truth.incidents()) {
            if (!incident.required()) {
                continue;
            }
            Alert alert = firstHit.get(incident);
            if (alert != null) {
                hits.add(new ScenarioScore.Hit(incident, alert));
            } else {
                misses.add(incident);
            }
        }
        return new ScenarioScore(truth.scenario(), hits, misses, falsePositives, duplicates, tolerated);
    }
}
