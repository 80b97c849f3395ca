package io.rdmamon.evaluate;

import io.rdmamon.model.Alert;
import io.rdmamon.scenario.GroundTruth;
import io.rdmamon.scenario.Incident;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ScoringTest {
    private static final long T0 = 1_000_000;
    private static final long END = T0 + 600_000;
    private static final IncidentMatcher MATCHER = new IncidentMatcher(60_000);
    private static final Incident HANG = new Incident(Alert.STALLED_SYNC, Incident.ALERT, "uid-a", "job-a", null,
            null, null, T0 + 300_000, null, null);
    private static final Incident LINK = new Incident(Alert.LINK_DOWN, Incident.ALERT, "uid-a", "job-a", "n2",
            "mlx5_0", 1, T0 + 100_000, T0 + 200_000, null);
    private static final Incident SIDE_EFFECT = new Incident(Alert.STRAGGLER, Incident.TOLERATE, "uid-a", "job-a",
            "n2", null, null, T0 + 100_000, null, null);
    private static final Incident FORBIDDEN = new Incident(Alert.STALLED_SYNC, Incident.NONE, "uid-b", "job-b", null,
            null, null, T0 + 100_000, null, null);

    @Test
    void shouldCountAHitWithItsLatencyWhenTheAlertMatchesTypeSubjectAndTime() {
        ScenarioScore score = score(List.of(HANG), jobAlert("1", Alert.STALLED_SYNC, "uid-a", HANG.onsetMs() + 12_500));
        assertThat(score.hits()).singleElement().satisfies(h -> assertThat(h.latencyMs()).isEqualTo(12_500));
        assertThat(score.misses()).isEmpty();
        assertThat(score.falsePositives()).isEmpty();
    }

    @Test
    void shouldAcceptTheJobNameInsteadOfTheUid() {
        assertThat(score(List.of(HANG), jobAlert("1", Alert.STALLED_SYNC, "job-a", HANG.onsetMs() + 1)).hits())
                .hasSize(1);
    }

    @Test
    void shouldCountAFalsePositiveAndAMissWhenTheAlertNamesAnotherJob() {
        ScenarioScore score = score(List.of(HANG), jobAlert("1", Alert.STALLED_SYNC, "uid-x", HANG.onsetMs() + 1));
        assertThat(score.hits()).isEmpty();
        assertThat(score.misses()).containsExactly(HANG);
        assertThat(score.falsePositives()).hasSize(1);
    }

    @Test
    void shouldCountAnAlertBeforeTheOnsetAsAFalsePositive() {
        ScenarioScore score = score(List.of(HANG), jobAlert("1", Alert.STALLED_SYNC, "uid-a", HANG.onsetMs() - 1));
        assertThat(score.falsePositives()).hasSize(1);
        assertThat(score.misses()).hasSize(1);
    }

    @Test
    void shouldAcceptADetectionUpToTheSlackAfterTheIncidentEndAndNotLater() {
        assertThat(score(List.of(LINK), portAlert("1", Alert.LINK_DOWN, "n2", "mlx5_0", 1, LINK.endMs() + 60_000))
                .hits()).hasSize(1);
        assertThat(score(List.of(LINK), portAlert("1", Alert.LINK_DOWN, "n2", "mlx5_0", 1, LINK.endMs() + 60_001))
                .falsePositives()).hasSize(1);
    }

    @Test
    void shouldRequireTheExactPortForLinkAlerts() {
        ScenarioScore score = score(List.of(LINK), portAlert("1", Alert.LINK_DOWN, "n2", "mlx5_1", 1, LINK.onsetMs()),
                portAlert("2", Alert.LINK_DOWN, "n2", null, null, LINK.onsetMs()));
        assertThat(score.hits()).isEmpty();
        assertThat(score.falsePositives()).hasSize(2);
    }

    @Test
    void shouldCountFurtherAlertsForAHitIncidentAsDuplicatesNotFalsePositives() {
        ScenarioScore score = score(List.of(LINK),
                portAlert("2", Alert.LINK_DOWN, "n2", "mlx5_0", 1, LINK.onsetMs() + 30_000),
                portAlert("1", Alert.LINK_DOWN, "n2", "mlx5_0", 1, LINK.onsetMs() + 5_000));
        assertThat(score.hits()).singleElement().satisfies(h -> assertThat(h.latencyMs()).isEqualTo(5_000));
        assertThat(score.duplicates()).hasSize(1);
        assertThat(score.falsePositives()).isEmpty();
    }

    @Test
    void shouldIgnoreResolvedRecordsAndRepeatedFiringRecordsOfOneId() {
        Alert firing = jobAlert("1", Alert.STALLED_SYNC, "uid-a", HANG.onsetMs() + 1_000);
        Alert resolved = new Alert(1, "1", Alert.STALLED_SYNC, Alert.RESOLVED, "critical", "uid-a", null, null, null,
                null, firing.startsAt(), firing.detectedAt(), END, null, Map.of());
        ScenarioScore score = score(List.of(HANG), firing, firing, resolved);
        assertThat(score.hits()).hasSize(1);
        assertThat(score.duplicates()).isEmpty();
    }

    @Test
    void shouldNeitherRewardNorPenaliseToleratedAlerts() {
        ScenarioScore score = score(List.of(LINK, SIDE_EFFECT),
                new Alert(1, "s", Alert.STRAGGLER, Alert.FIRING, "warning", "uid-a", null, "n2", null, null,
                        T0 + 100_000, T0 + 120_000, null, null, Map.of()));
        assertThat(score.tolerated()).hasSize(1);
        assertThat(score.falsePositives()).isEmpty();
        assertThat(score.misses()).containsExactly(LINK);
    }

    @Test
    void shouldCountAnAlertForAnIncidentThatMustNotBeAlertedAsAFalsePositive() {
        ScenarioScore score = score(List.of(FORBIDDEN), jobAlert("1", Alert.STALLED_SYNC, "uid-b", T0 + 110_000));
        assertThat(score.falsePositives()).hasSize(1);
        assertThat(score.misses()).isEmpty();
    }

    @Test
    void shouldGiveEachOfTwoSimilarIncidentsItsOwnAlert() {
        Incident other = new Incident(Alert.LINK_DOWN, Incident.ALERT, null, null, "n3", "mlx5_0", 1, LINK.onsetMs(),
                null, null);
        ScenarioScore score = score(List.of(LINK, other),
                portAlert("1", Alert.LINK_DOWN, "n3", "mlx5_0", 1, LINK.onsetMs() + 1_000),
                portAlert("2", Alert.LINK_DOWN, "n2", "mlx5_0", 1, LINK.onsetMs() + 2_000));
        assertThat(score.hits()).extracting(h -> h.incident().node()).containsExactly("n2", "n3");
    }

    @Test
    void shouldSummariseLatencyPercentilesPerTypeAcrossScenarios() {
        List<ScenarioScore> scores = List.of(
                score(List.of(HANG), jobAlert("1", Alert.STALLED_SYNC, "uid-a", HANG.onsetMs() + 3_000)),
                score(List.of(HANG), jobAlert("1", Alert.STALLED_SYNC, "uid-a", HANG.onsetMs() + 9_000)),
                score(List.of(HANG), jobAlert("1", Alert.STALLED_SYNC, "uid-a", HANG.onsetMs() + 5_000)),
                score(List.of(HANG)),
                score(List.of(), portAlert("9", Alert.LINK_IDLE, "n1", "mlx5_1", 1, T0)));
        TypeSummary stall = TypeSummary.of(scores).stream().filter(t -> t.type().equals(Alert.STALLED_SYNC))
                .findFirst().orElseThrow();
        assertThat(stall).isEqualTo(new TypeSummary(Alert.STALLED_SYNC, 3, 0, 1, 0, 0, 5_000L, 9_000L, 9_000L));
        TypeSummary idle = TypeSummary.of(scores).stream().filter(t -> t.type().equals(Alert.LINK_IDLE))
                .findFirst().orElseThrow();
        assertThat(idle).isEqualTo(new TypeSummary(Alert.LINK_IDLE, 0, 1, 0, 0, 0, null, null, null));
    }

    @Test
    void shouldTakeTheNearestRankPercentile() {
        List<Long> twenty = java.util.stream.LongStream.rangeClosed(1, 20).boxed().toList();
        assertThat(TypeSummary.percentile(twenty, 50)).isEqualTo(10L);
        assertThat(TypeSummary.percentile(twenty, 95)).isEqualTo(19L);
        assertThat(TypeSummary.percentile(List.of(7L), 95)).isEqualTo(7L);
        assertThat(TypeSummary.percentile(List.of(), 50)).isNull();
    }

    private static ScenarioScore score(List<Incident> incidents, Alert... alerts) {
        GroundTruth truth = new GroundTruth(1, "test", "", 1, T0, END, incidents);
        return Scoring.score(truth, List.of(alerts), MATCHER);
    }

    private static Alert jobAlert(String id, String type, String job, long detectedAt) {
        return new Alert(1, id, type, Alert.FIRING, "critical", job, "ns", null, null, null, detectedAt - 10_000,
                detectedAt, null, "test", Map.of());
    }

    private static Alert portAlert(String id, String type, String node, String device, Integer port, long detectedAt) {
        return new Alert(1, id, type, Alert.FIRING, "warning", null, null, node, device, port, detectedAt - 10_000,
                detectedAt, null, "test", Map.of());
    }
}
