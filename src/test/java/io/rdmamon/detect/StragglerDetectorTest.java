package io.rdmamon.detect;

import io.rdmamon.model.Alert;
import io.rdmamon.model.JobBandwidth;
import io.rdmamon.model.JobRecord;
import io.rdmamon.testing.TopologyHarness;
import io.rdmamon.testing.TrainingTraffic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** STRAGGLER on simulated training: 4 nodes, rail erdma_0, judged per 10 s window of job bandwidth. */
class StragglerDetectorTest {
    static final long T0 = 1_700_000_000_000L;
    static final List<String> NODES = List.of("n1", "n2", "n3", "n4");
    static final List<String> RAIL = List.of("erdma_0");

    @TempDir
    Path stateDir;

    private final TrainingTraffic sim = new TrainingTraffic();
    private TopologyHarness harness;

    private TrainingTraffic.Job trainingJob(String uid, List<String> nodes) {
        TrainingTraffic.Job job = sim.job(uid, nodes, RAIL).trains(T0 + 10_000, Long.MAX_VALUE);
        sim.record(job, JobRecord.RUNNING, T0);
        return job;
    }

    private List<Alert> run(long until) {
        harness = new TopologyHarness(stateDir, T0, Map.of());
        try (TopologyHarness h = harness) {
            h.feed(sim.run(T0, until));
            return h.alerts;
        }
    }

    @Test
    void shouldFlagStragglerWhenPortCarriesFarLessThanItsRailPeersForSeveralWindows() {
        long slow = T0 + 120_000;
        trainingJob("uid-a", NODES).portFactor("n3", "erdma_0", slow, slow + 120_000, 0.4);
        List<Alert> alerts = run(slow + 240_000);

        assertThat(alerts).extracting(Alert::type).containsOnly(Alert.STRAGGLER);
        assertThat(alerts).extracting(Alert::status).containsExactly(Alert.FIRING, Alert.RESOLVED);
        Alert firing = alerts.get(0);
        assertThat(firing.node()).isEqualTo("n3");
        assertThat(firing.device()).isEqualTo("erdma_0");
        assertThat(firing.port()).isEqualTo(1);
        assertThat(firing.labels()).containsEntry("ranks", "2").containsEntry("reason", "deviates");
        assertThat(firing.startsAt()).isBetween(slow - 10_000, slow);
        // continuity: 3 of 4 windows of 10 s
        assertThat(firing.detectedAt() - slow).isBetween(20_000L, 40_000L);
        assertThat(alerts.get(1).endsAt()).isBetween(slow + 120_000, slow + 130_000);
    }

    @Test
    void shouldFlagMissingTrafficWhenRankMovesNothingWhileItsPeerCommunicates() {
        long lost = T0 + 120_000;
        trainingJob("uid-a", List.of("n1", "n2")).portFactor("n2", "erdma_0", lost, Long.MAX_VALUE, 0);
        List<Alert> alerts = run(lost + 90_000);
        assertThat(alerts).singleElement().satisfies(a -> {
            assertThat(a.type()).isEqualTo(Alert.STRAGGLER);
            assertThat(a.node()).isEqualTo("n2");
            assertThat(a.labels()).containsEntry("reason", "missing-traffic");
        });
    }

    @Test
    void shouldNotFlagStragglerWhenDeviationIsBrief() {
        long blip = T0 + 120_000;
        trainingJob("uid-a", NODES).portFactor("n3", "erdma_0", blip, blip + 10_000, 0.4);
        assertThat(run(blip + 120_000)).isEmpty();
    }

    @Test
    void shouldNotFlagStragglerWhenRankDidNotReport() {
        long outage = T0 + 120_000;
        trainingJob("uid-a", NODES);
        sim.silence("n3", outage, outage + 60_000);
        assertThat(run(outage + 120_000)).extracting(Alert::type).containsOnly(Alert.COLLECTOR_SILENT);
    }

    @Test
    void shouldNotFlagStragglerFromEstimatesWhenDeviceIsShared() {
        // job B shares n1's NIC with job A: n1 shows A+B traffic, which says nothing about A's rank on n1
        trainingJob("uid-a", NODES);
        trainingJob("uid-b", List.of("n1"));
        assertThat(run(T0 + 240_000)).isEmpty();
        List<JobBandwidth> a = harness.bandwidth.stream().filter(b -> b.uid().equals("uid-a")).toList();
        assertThat(a).isNotEmpty().allSatisfy(b -> assertThat(b.estimated()).isTrue());
    }
}
