package io.rdmamon.detect;

import io.rdmamon.model.Alert;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.PortSample;
import io.rdmamon.testing.TopologyHarness;
import io.rdmamon.testing.TrainingTraffic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/** LINK_DOWN, LINK_DEGRADED and LINK_IDLE on a training job's ports and a spare port. */
class LinkDetectorsTest {
    static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path stateDir;

    private final TrainingTraffic sim = new TrainingTraffic();

    LinkDetectorsTest() {
        TrainingTraffic.Job job = sim.job("uid-a", List.of("n1", "n2"), List.of("erdma_0", "erdma_1"))
                .trains(T0 + 10_000, Long.MAX_VALUE);
        sim.record(job, JobRecord.RUNNING, T0).sparePort("n1", "erdma_9");
    }

    /** Applies {@code change} to the samples of {@code node/device} whose time matches {@code when}. */
    private void alter(String node, String device, LongPredicate when, UnaryOperator<PortSample> change) {
        sim.tweak(s -> s.node().equals(node) && s.device().equals(device) && when.test(s.ts()) ? change.apply(s) : s);
    }

    private static PortSample withState(PortSample s, String state, Map<String, Long> errors, Long rate) {
        return new PortSample(s.v(), s.node(), s.device(), s.port(), s.ts(), s.intervalMs(), s.source(), state,
                s.physState(), s.linkLayer(), rate, s.txBytesPerSec(), s.rxBytesPerSec(), s.txPacketsPerSec(),
                s.rxPacketsPerSec(), errors, Map.of());
    }

    private List<Alert> run(long until, Map<String, ?> overrides) {
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, overrides)) {
            h.feed(sim.run(T0, until));
            return h.alerts;
        }
    }

    @Test
    void shouldFlagLinkDownWhilePortIsNotActiveAndResolveAfterItStaysUp() {
        long down = T0 + 60_000;
        alter("n2", "erdma_1", t -> t >= down && t < down + 20_000,
                s -> withState(s, "DOWN", Map.of("link_downed", 1L), s.rateBytesPerSec()));
        List<Alert> alerts = run(down + 90_000, Map.of());

        List<Alert> linkDown = alerts.stream().filter(a -> a.type().equals(Alert.LINK_DOWN)).toList();
        assertThat(linkDown).extracting(Alert::status).containsExactly(Alert.FIRING, Alert.RESOLVED);
        Alert firing = linkDown.get(0);
        assertThat(firing.startsAt()).isEqualTo(down);
        assertThat(firing.detectedAt()).isEqualTo(down);
        assertThat(firing).extracting(Alert::node, Alert::device, Alert::port, Alert::job, Alert::severity)
                .containsExactly("n2", "erdma_1", 1, "job-uid-a", Condition.CRITICAL);
        assertThat(firing.labels()).containsEntry("uid", "uid-a").containsEntry("ranks", "3");
        assertThat(linkDown.get(1).endsAt()).isEqualTo(down + 20_000);
    }

    @Test
    void shouldReportFlappingLinkAsOneIncident() {
        long flap = T0 + 60_000;
        alter("n1", "erdma_0", t -> t == flap || t == flap + 10_000,
                s -> withState(s, "ACTIVE", Map.of("link_downed", 1L), s.rateBytesPerSec()));
        List<Alert> linkDown = run(flap + 90_000, Map.of()).stream()
                .filter(a -> a.type().equals(Alert.LINK_DOWN)).toList();
        assertThat(linkDown).extracting(Alert::status).containsExactly(Alert.FIRING, Alert.RESOLVED);
        assertThat(linkDown.get(0).labels()).containsEntry("reason", "link_downed");
    }

    @Test
    void shouldWarnWhenSparePortIsDown() {
        alter("n1", "erdma_9", t -> true, s -> withState(s, "DOWN", Map.of(), s.rateBytesPerSec()));
        assertThat(run(T0 + 30_000, Map.of())).singleElement().satisfies(a -> {
            assertThat(a.type()).isEqualTo(Alert.LINK_DOWN);
            assertThat(a.severity()).isEqualTo(Condition.WARNING);
            assertThat(a.job()).isNull();
        });
    }

    @Test
    void shouldFlagDegradedLinkWhenErrorsAreSustained() {
        long errors = T0 + 60_000;
        alter("n1", "erdma_0", t -> t >= errors && t < errors + 60_000 && (t / 1_000) % 5 == 0,
                s -> withState(s, s.state(), Map.of("out_of_sequence", 40L, "tx_bps_limit_drop_cnt", 3L),
                        s.rateBytesPerSec()));
        List<Alert> alerts = run(errors + 240_000, Map.of());
        assertThat(alerts).extracting(Alert::status).containsExactly(Alert.FIRING, Alert.RESOLVED);
        Alert firing = alerts.get(0);
        assertThat(firing.type()).isEqualTo(Alert.LINK_DEGRADED);
        assertThat(firing.labels()).containsEntry("reason", "errors");
        assertThat(firing.startsAt()).isBetween(errors, errors + 5_000);
        assertThat(firing.detectedAt()).isBetween(errors + 10_000, errors + 15_000);
        // resolved after 120 s without errors, at the first clean sample
        assertThat(alerts.get(1).endsAt()).isBetween(errors + 55_000, errors + 61_000);
    }

    /** A port that never reports a nominal rate (an ACS P16EN job's socket port, eth0, has none) is judged too. */
    @Test
    void shouldFlagDegradedLinkOfAPortWithoutNominalRate() {
        long errors = T0 + 60_000;
        alter("n1", "erdma_0", t -> true, s -> withState(s, s.state(), s.ts() >= errors && s.ts() < errors + 60_000
                && (s.ts() / 1_000) % 5 == 0 ? Map.of("out_of_sequence", 40L) : Map.of(), null));
        assertThat(run(errors + 30_000, Map.of())).singleElement().satisfies(a -> {
            assertThat(a.type()).isEqualTo(Alert.LINK_DEGRADED);
            assertThat(a.labels()).containsEntry("reason", "errors");
        });
    }

    @Test
    void shouldNotFlagDegradedLinkForOneBurstOfErrorsOrForCongestionSignals() {
        long burst = T0 + 60_000;
        alter("n1", "erdma_0", t -> t == burst, s -> withState(s, s.state(), Map.of("symbol_error", 500L),
                s.rateBytesPerSec()));
        alter("n2", "erdma_0", t -> t >= burst, s -> withState(s, s.state(), Map.of("np_cnp_sent", 9_000L,
                "port_xmit_wait", 1_000_000L), s.rateBytesPerSec()));
        assertThat(run(burst + 120_000, Map.of())).isEmpty();
    }

    @Test
    void shouldFlagDegradedLinkWhenRateDownshifts() {
        long downshift = T0 + 60_000;
        alter("n2", "erdma_0", t -> t >= downshift, s -> withState(s, s.state(), Map.of(), 12_500_000_000L));
        assertThat(run(downshift + 30_000, Map.of())).singleElement().satisfies(a -> {
            assertThat(a.type()).isEqualTo(Alert.LINK_DEGRADED);
            assertThat(a.startsAt()).isEqualTo(downshift);
            assertThat(a.labels()).containsEntry("reason", "downshift")
                    .containsEntry("nominalBytesPerSec", String.valueOf(TrainingTraffic.LINK_RATE));
        });
    }

    @Test
    void shouldFlagIdleLinkWhenJobHoldsPortItNeverUses() {
        // NCCL uses erdma_0 only: the job's erdma_1 ports stay idle; the spare port is idle but unallocated
        TrainingTraffic other = new TrainingTraffic();
        TrainingTraffic.Job job = other.job("uid-b", List.of("n3"), List.of("erdma_0", "erdma_1"))
                .trains(T0 + 10_000, Long.MAX_VALUE).portFactor("n3", "erdma_1", T0, Long.MAX_VALUE, 0);
        other.record(job, JobRecord.RUNNING, T0).record(job, JobRecord.SUCCEEDED, T0 + 200_000);
        List<Alert> alerts;
        try (TopologyHarness h = new TopologyHarness(stateDir, T0,
                Map.of(DetectorConfig.LINK_IDLE_AFTER_CONFIG, 120_000))) {
            h.feed(other.run(T0, T0 + 240_000));
            alerts = h.alerts;
        }
        assertThat(alerts).extracting(Alert::type).containsOnly(Alert.LINK_IDLE);
        assertThat(alerts).extracting(Alert::status).containsExactly(Alert.FIRING, Alert.RESOLVED);
        assertThat(alerts.get(0)).extracting(Alert::node, Alert::device, Alert::severity)
                .containsExactly("n3", "erdma_1", Condition.INFO);
        assertThat(alerts.get(0).detectedAt() - alerts.get(0).startsAt()).isEqualTo(120_000);
        // the job ended: the device is no longer allocated
        assertThat(alerts.get(1).endsAt()).isBetween(T0 + 200_000, T0 + 201_000);
    }
}
