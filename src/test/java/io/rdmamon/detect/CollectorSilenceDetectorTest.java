package io.rdmamon.detect;

import io.rdmamon.model.Alert;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.Json;
import io.rdmamon.model.NodeRecord;
import io.rdmamon.testing.TopologyHarness;
import io.rdmamon.testing.TrainingTraffic;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** COLLECTOR_SILENT, driven by the wall clock advanced in step with event time as in a replay. */
class CollectorSilenceDetectorTest {
    static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path stateDir;

    private final TrainingTraffic sim = new TrainingTraffic();

    CollectorSilenceDetectorTest() {
        TrainingTraffic.Job job = sim.job("uid-a", List.of("n1", "n2"), List.of("erdma_0"))
                .trains(T0 + 10_000, Long.MAX_VALUE);
        sim.record(job, JobRecord.RUNNING, T0);
    }

    @Test
    void shouldFlagSilentCollectorAndResolveWhenSamplesReturn() {
        long outage = T0 + 60_000;
        sim.silence("n2", outage, outage + 40_000);
        List<Alert> alerts;
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of())) {
            h.feed(sim.run(T0, outage + 90_000));
            alerts = h.alerts;
        }
        assertThat(alerts).extracting(Alert::type).containsOnly(Alert.COLLECTOR_SILENT);
        assertThat(alerts).extracting(Alert::status).containsExactly(Alert.FIRING, Alert.RESOLVED);
        Alert firing = alerts.get(0);
        assertThat(firing.node()).isEqualTo("n2");
        // last sample at outage - 1 s: the first missing one is due at the outage
        assertThat(firing.startsAt()).isEqualTo(outage);
        assertThat(firing.detectedAt() - firing.startsAt()).isBetween(14_000L, 17_000L);
        assertThat(alerts.get(1).endsAt()).isEqualTo(outage + 40_000);
        assertThat(alerts.get(1).id()).isEqualTo(firing.id());
    }

    /**
     * The store is what a restart has of a node that never comes back; at one write per pass and commit it was a
     * third of the live app's changelog records.
     */
    @Test
    void shouldStoreANodesHeartbeatOncePerHalfThreshold() throws Exception {
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of())) {
            h.feed(sim.run(T0, T0 + 60_000));
            List<Heartbeat> n1 = new ArrayList<>();
            for (TestRecord<String, byte[]> r : h.internalTopic(CollectorSilenceDetector.STORE + "-changelog")) {
                if (r.key().equals("n1")) {
                    n1.add(Json.MAPPER.readValue(r.value(), Heartbeat.class));
                }
            }
            // 60 passes; the default threshold is 15 s, so one write per 7.5 s of the node's samples
            assertThat(n1).hasSizeBetween(8, 9);
            assertThat(n1.get(n1.size() - 1).ts()).isGreaterThan(T0 + 60_000 - 1_000 - 7_500);
        }
    }

    @Test
    void shouldNotFlagSilenceWhenGapIsShorterThanThreshold() {
        sim.silence("n2", T0 + 60_000, T0 + 70_000);
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of())) {
            h.feed(sim.run(T0, T0 + 120_000));
            assertThat(h.alerts).isEmpty();
        }
    }

    @Test
    void shouldNotFlagNodesWhoseSamplesAreStillQueuedWhenCatchingUp() {
        // an app working through a backlog, 20 s behind, then 30 s: n1's partition is read first for a minute and
        // n2's samples wait behind it
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of())) {
            h.feed(sim.run(T0, T0 + 60_000), 20_000);
            List<TrainingTraffic.Event> backlog = sim.run(T0 + 60_000, T0 + 120_000);
            h.feed(backlog.stream().filter(e -> !"n2".equals(node(e))).toList(), 30_000);
            assertThat(h.counter("rdmamon.streams.collector.silence.checks.skipped")).isPositive();
            h.feed(backlog.stream().filter(e -> "n2".equals(node(e))).toList(), 0);
            h.feed(sim.run(T0 + 120_000, T0 + 240_000));
            assertThat(h.alerts(Alert.COLLECTOR_SILENT)).isEmpty();
        }
    }

    @Test
    void shouldNotFlagAnyNodeWhenNothingArrivesForAWhileInTheMiddleOfACatchUp() {
        // seen in the sizing benchmark: one task of six got nothing for 15 s while 77 s behind, and all its nodes
        // looked silent
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of())) {
            // a restart 60 s behind; then nothing at all for 20 s, with the last sample 60 s late
            h.feed(sim.run(T0, T0 + 90_000), 60_000);
            h.advanceTo(T0 + 90_000 + 60_000 + 20_000);
            h.feed(sim.run(T0 + 90_000, T0 + 150_000), 80_000);
            h.feed(sim.run(T0 + 150_000, T0 + 300_000));
            assertThat(h.counter("rdmamon.streams.collector.silence.checks.skipped")).isPositive();
            assertThat(h.alerts(Alert.COLLECTOR_SILENT)).isEmpty();
        }
    }

    @Test
    void shouldFlagSilenceWhenNothingArrivesForCatchUpMaxAfterLateSamples() {
        // behind, and then the collectors do stop: judged once catchup.max has passed without any sample
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of(
                DetectorConfig.COLLECTOR_CATCH_UP_MAX_CONFIG, 120_000))) {
            h.feed(sim.run(T0, T0 + 90_000), 40_000);
            h.advanceTo(T0 + 130_000 + 100_000);
            assertThat(h.firing(Alert.COLLECTOR_SILENT)).isEmpty();
            h.advanceTo(T0 + 130_000 + 130_000);
            assertThat(h.firing(Alert.COLLECTOR_SILENT)).extracting(Alert::node).containsExactlyInAnyOrder("n1", "n2");
        }
    }

    @Test
    void shouldStillFlagSilenceWhenSamplesAreAlwaysLate() {
        // every sample 40 s late for good: after catchup.max that is a clock behind, not a backlog; silence counts
        sim.silence("n2", T0 + 120_000, T0 + 300_000);
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of(
                DetectorConfig.COLLECTOR_CATCH_UP_MAX_CONFIG, 60_000))) {
            h.feed(sim.run(T0, T0 + 300_000), 40_000);
            assertThat(h.firing(Alert.COLLECTOR_SILENT)).extracting(Alert::node).containsExactly("n2");
        }
    }

    @Test
    void shouldFlagSilenceWhenWholeClusterStopsSending() {
        // nothing arrives any more, so event time stands still: only the wall clock can tell
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of())) {
            h.feed(sim.run(T0, T0 + 60_000));
            h.advanceTo(T0 + 90_000);
            assertThat(h.firing(Alert.COLLECTOR_SILENT)).extracting(Alert::node).containsExactlyInAnyOrder("n1", "n2");
        }
    }

    /** A spare node (no job on it) scaled in: its Node object deleted, then its collector stops with the machine. */
    @Test
    void shouldForgetANodeWhoseNodeObjectWasDeletedInsteadOfReportingItSilent() {
        sim.sparePort("n3", "erdma_0").silence("n3", T0 + 60_000, Long.MAX_VALUE);
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of())) {
            h.feed(sim.run(T0, T0 + 59_000));
            h.node(NodeRecord.deleted("n3", T0 + 59_500));
            h.feed(sim.run(T0 + 59_000, T0 + 150_000));
            assertThat(h.alerts(Alert.COLLECTOR_SILENT)).isEmpty();
            assertThat(h.counter("rdmamon.streams.collector.departed.nodes")).isEqualTo(1);
        }
    }

    /**
     * As today: a node whose collector stops while its Node object stays is reported. A node record outside the
     * contract counts as no departure; it is counted (once, though looked up at every check).
     */
    @Test
    void shouldFlagANodeThatStopsWithoutBeingDeleted() {
        sim.sparePort("n3", "erdma_0").silence("n3", T0 + 60_000, Long.MAX_VALUE);
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of())) {
            h.node(NodeRecord.present("n1", T0));
            h.raw(h.cfg.topics().nodes(), "n3", "{\"v\":1,\"node\":\"n3\",\"state\":\"Gone\",\"at\":" + T0
                    + "}", T0);
            h.feed(sim.run(T0, T0 + 150_000));
            assertThat(h.firing(Alert.COLLECTOR_SILENT)).extracting(Alert::node).containsExactly("n3");
            assertThat(h.counter("rdmamon.streams.collector.departed.nodes")).isZero();
            assertThat(h.counter("rdmamon.streams.nodes.invalid")).isEqualTo(1);
        }
    }

    /**
     * A spot instance reclaimed under a running job: reported, naming the job, until the job lets the node go; then
     * the node is forgotten (resolved).
     */
    @Test
    void shouldReportADeletedNodeWhileAJobStillRunsOnItAndForgetItWhenTheJobEnds() {
        TrainingTraffic spot = new TrainingTraffic();
        TrainingTraffic.Job job = spot.job("uid-b", List.of("n1", "n2"), List.of("erdma_0"))
                .trains(T0 + 10_000, Long.MAX_VALUE);
        spot.record(job, JobRecord.RUNNING, T0).record(job, JobRecord.FAILED, T0 + 120_000)
                .silence("n2", T0 + 60_000, Long.MAX_VALUE);
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of())) {
            h.feed(spot.run(T0, T0 + 59_000));
            h.node(NodeRecord.deleted("n2", T0 + 59_500));
            h.feed(spot.run(T0 + 59_000, T0 + 100_000));
            List<Alert> firing = h.firing(Alert.COLLECTOR_SILENT);
            assertThat(firing).extracting(Alert::node).containsExactly("n2");
            assertThat(firing.get(0).summary()).contains("left the cluster").contains("job job-uid-b (team-a)");

            h.feed(spot.run(T0 + 100_000, T0 + 200_000));
            assertThat(h.alerts(Alert.COLLECTOR_SILENT)).extracting(Alert::status)
                    .containsExactly(Alert.FIRING, Alert.RESOLVED);
            assertThat(h.counter("rdmamon.streams.collector.departed.nodes")).isEqualTo(1);
        }
    }

    private static String node(TrainingTraffic.Event e) {
        return e.port() != null ? e.port().node() : e.host() != null ? e.host().node() : null;
    }
}
