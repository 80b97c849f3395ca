package io.rdmamon.clock;

import io.micrometer.core.instrument.Gauge;
import io.rdmamon.model.Alert;
import io.rdmamon.model.JobRecord;
import io.rdmamon.testing.TopologyHarness;
import io.rdmamon.testing.TrainingTraffic;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Issue 37 where a partition holds two nodes, so no majority of its nodes can say whose clock is off: a job on two
 * nodes (2 eRDMA devices each, bursts every second) that hangs after 5 minutes, through the whole topology, the app's
 * wall clock at the true time (as live, NTP-synced) and one node's samples stamped by a clock off by ±5 s or ±30 s.
 * The alerts are those of the same traffic with every clock right, STALLED_SYNC within 5 s; the node off is the one
 * corrected and named, whichever node it is (the first heard from, or not); the other never is.
 */
class TwoNodeClockSkewTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final long HANG = T0 + 300_000;

    @TempDir
    Path stateDir;

    private static List<TrainingTraffic.Event> traffic() {
        TrainingTraffic sim = new TrainingTraffic();
        TrainingTraffic.Job job = sim.job("uid-a", List.of("n1", "n2"), List.of("erdma_0", "erdma_1"))
                .trains(T0 + 10_000, Long.MAX_VALUE).pause(HANG, Long.MAX_VALUE);
        sim.record(job, JobRecord.RUNNING, T0);
        return sim.run(T0, HANG + 90_000);
    }

    @ParameterizedTest(name = "{0} off by {1} ms")
    @CsvSource({"n2, 30000", "n2, -30000", "n2, 5000", "n2, -5000", "n1, 30000", "n1, -30000"})
    void shouldJudgeTheNodeOffInCorrectedTimeAndNameOnlyIt(String skewed, long offset) throws Exception {
        List<TrainingTraffic.Event> events = traffic();
        List<Alert> expected;
        try (TopologyHarness right = new TopologyHarness(stateDir.resolve("right"), T0, Map.of())) {
            expected = right.feedWithClocks(events, Map.of()).alerts;
        }
        try (TopologyHarness h = new TopologyHarness(stateDir.resolve("skewed"), T0, Map.of())) {
            List<Alert> actual = h.feedWithClocks(events, Map.of(skewed, offset)).alerts;

            assertThat(subjects(actual)).isEqualTo(subjects(expected)).contains("STALLED_SYNC job-uid-a");
            Alert stall = firing(expected, Alert.STALLED_SYNC);
            assertThat(firing(actual, Alert.STALLED_SYNC).detectedAt()).as("STALLED_SYNC detected at")
                    .isBetween(stall.detectedAt() - 5_000, stall.detectedAt() + 5_000);
            Map<String, Double> named = h.registry.find("rdmamon.streams.clock.offset").gauges().stream()
                    .collect(Collectors.toMap(g -> g.getId().getTag("node"), Gauge::value));
            assertThat(named).containsOnlyKeys(skewed);
            assertThat(named.get(skewed)).isCloseTo(offset / 1000.0, within(1.0));
        }
    }

    /** What each firing alert is about: type and job or node, without times. */
    private static Set<String> subjects(List<Alert> alerts) {
        return alerts.stream().filter(a -> a.status().equals(Alert.FIRING))
                .map(a -> a.type() + " " + (a.job() != null ? a.job() : a.node()))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Alert firing(List<Alert> alerts, String type) {
        return alerts.stream().filter(a -> a.status().equals(Alert.FIRING) && a.type().equals(type)).findFirst()
                .orElseThrow();
    }
}
