package io.rdmamon.scenario;

import io.rdmamon.model.Alert;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.PortSample;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/** The generator is deterministic and each scenario's samples show what its ground truth says. */
class ScenarioRecorderTest {
    private static final long MIN = 60_000;

    @Test
    void shouldWriteTheSameBytesWhenTheSeedIsTheSame(@TempDir Path dir) throws IOException {
        ScenarioFiles.write(ScenarioRecorder.record(ScenarioCatalog.get("concurrent-jobs", 42)), dir.resolve("a"));
        ScenarioFiles.write(ScenarioRecorder.record(ScenarioCatalog.get("concurrent-jobs", 42)), dir.resolve("b"));
        ScenarioFiles.write(ScenarioRecorder.record(ScenarioCatalog.get("concurrent-jobs", 43)), dir.resolve("c"));
        for (String file : List.of(ScenarioFiles.SAMPLES, ScenarioFiles.HOST_SAMPLES, ScenarioFiles.JOBS,
                ScenarioFiles.TRUTH)) {
            assertThat(Files.mismatch(dir.resolve("a").resolve(file), dir.resolve("b").resolve(file)))
                    .as(file).isEqualTo(-1L);
        }
        assertThat(Files.mismatch(dir.resolve("a").resolve(ScenarioFiles.SAMPLES),
                dir.resolve("c").resolve(ScenarioFiles.SAMPLES))).isNotEqualTo(-1L);
    }

    @Test
    void shouldMoveFaultOnsetsWithTheSeedWithinTenSeconds() {
        List<Long> onsets = java.util.stream.LongStream.rangeClosed(1, 5)
                .mapToObj(seed -> ScenarioCatalog.get("hang", seed).incidents().get(0).onsetMs()).toList();
        long nominal = Cluster.EPOCH + 6 * MIN;
        assertThat(onsets).allMatch(t -> t >= nominal && t < nominal + Cluster.MAX_EVENT_SHIFT_MS);
        assertThat(onsets).doesNotHaveDuplicates();
    }

    @Test
    void shouldReadBackTheGroundTruthItWrote(@TempDir Path dir) throws IOException {
        ScenarioRecorder.Recording recording = ScenarioRecorder.record(ScenarioCatalog.get("link-down", 1));
        ScenarioFiles.write(recording, dir);
        assertThat(ScenarioFiles.readTruth(dir)).isEqualTo(recording.truth());
        assertThat(ScenarioFiles.isScenario(dir)).isTrue();
    }

    @Test
    void shouldDeliverSomeSamplesOutOfOrderWithinTheJitterBound() {
        List<PortSample> samples = ScenarioRecorder.record(ScenarioCatalog.get("healthy", 1)).portSamples();
        long maxTs = Long.MIN_VALUE;
        long late = 0;
        long maxLateness = 0;
        for (PortSample s : samples) {
            if (s.ts() < maxTs) {
                late++;
                maxLateness = Math.max(maxLateness, maxTs - s.ts());
            }
            maxTs = Math.max(maxTs, s.ts());
        }
        assertThat(late).isPositive();
        assertThat(maxLateness).isLessThanOrEqualTo(ScenarioRecorder.MAX_DELAY_MS);
    }

    @Test
    void shouldSilenceEveryPortOfTheJobAfterTheHangOnset() {
        Scenario s = Scenario.of("hang");
        Incident hang = s.incident(Alert.STALLED_SYNC);
        assertThat(s.ports(p -> p.ts() >= hang.onsetMs() + 1000)).allMatch(p -> p.txBytesPerSec() == 0.0);
        assertThat(s.ports(p -> p.ts() > s.truth().startMs() + 2 * MIN && p.ts() < hang.onsetMs()))
                .allMatch(p -> p.txBytesPerSec() > 0);
    }

    @Test
    void shouldHalveTheStragglersShareAfterOnset() {
        Scenario s = Scenario.of("straggler");
        Incident straggler = s.incident(Alert.STRAGGLER);
        Predicate<PortSample> after = p -> p.ts() > straggler.onsetMs() + 1000;
        double slow = s.meanTx(after.and(p -> p.node().equals(straggler.node())));
        double peers = s.meanTx(after.and(p -> !p.node().equals(straggler.node())));
        assertThat(slow / peers).isBetween(0.45, 0.55);
        Predicate<PortSample> before = p -> p.ts() > s.truth().startMs() + 2 * MIN
                && p.ts() < straggler.onsetMs();
        assertThat(s.meanTx(before.and(p -> p.node().equals(straggler.node())))
                / s.meanTx(before.and(p -> !p.node().equals(straggler.node())))).isBetween(0.95, 1.05);
    }

    @Test
    void shouldShowNoRdmaTrafficFromTheMissingRankWhilePeersAndItsHostNetworkCarryOn() {
        Scenario s = Scenario.of("missing-rank");
        Incident missing = s.incident(Alert.STRAGGLER);
        Predicate<PortSample> after = p -> p.ts() > missing.onsetMs() + 1000;
        assertThat(s.ports(after.and(p -> p.node().equals(missing.node())))).allMatch(p -> p.txBytesPerSec() == 0.0);
        assertThat(s.meanTx(after.and(p -> !p.node().equals(missing.node())))).isPositive();
        assertThat(s.hosts(h -> h.node().equals(missing.node()) && h.ts() > missing.onsetMs() + 1000))
                .allMatch(h -> h.txBytesPerSec() > 1e9);
    }

    @Test
    void shouldReportErrorsOnlyOnTheDegradedPortAndOnlyAfterOnset() {
        Scenario s = Scenario.of("degraded-link");
        Incident link = s.incident(Alert.LINK_DEGRADED);
        List<PortSample> withErrors = s.ports(p -> p.errorClasses().containsKey("retransmit"));
        assertThat(withErrors).isNotEmpty().allMatch(p -> s.onPort(p, link) && p.ts() >= link.onsetMs());
        assertThat(s.ports(p -> s.onPort(p, link) && p.ts() > link.onsetMs() + 1000))
                .allMatch(p -> p.errorClasses().get("retransmit") > 200 && p.errorClasses().get("drop") > 10);
    }

    @Test
    void shouldLowerTheRateOfTheDownshiftedPortOnly() {
        Scenario s = Scenario.of("degraded-downshift");
        Incident link = s.incident(Alert.LINK_DEGRADED);
        assertThat(s.ports(p -> p.rateBytesPerSec() < 25_000_000_000L))
                .isNotEmpty().allMatch(p -> s.onPort(p, link) && p.ts() >= link.onsetMs());
    }

    @Test
    void shouldToggleTheFlappingPortAndCountLinkDownsOnlyWithinTheFlap() {
        Scenario s = Scenario.of("link-flap");
        Incident flap = s.incident(Alert.LINK_DOWN);
        List<PortSample> down = s.ports(p -> "DOWN".equals(p.state()));
        assertThat(down).hasSizeBetween(15, 20)
                .allMatch(p -> s.onPort(p, flap) && p.ts() >= flap.onsetMs() && p.ts() <= flap.endMs() + 1000);
        assertThat(s.ports(p -> p.errors().containsKey("link_downed")).stream()
                .mapToLong(p -> p.errors().get("link_downed")).sum()).isEqualTo(6);
    }

    @Test
    void shouldTakeThePortDownAndStallTheJobInTheLinkDownScenario() {
        Scenario s = Scenario.of("link-down");
        Incident link = s.incident(Alert.LINK_DOWN);
        assertThat(s.ports(p -> s.onPort(p, link) && p.ts() >= link.onsetMs() + 1000))
                .allMatch(p -> "DOWN".equals(p.state()));
        assertThat(s.ports(p -> p.ts() >= link.onsetMs() + 1000)).allMatch(p -> p.txBytesPerSec() == 0.0);
    }

    @Test
    void shouldKeepTheAllocatedSecondRailIdleForTheWholeIdleScenario() {
        Scenario s = Scenario.of("idle-link");
        assertThat(s.truth().incidents()).hasSize(4).allMatch(i -> i.type().equals(Alert.LINK_IDLE));
        assertThat(s.ports(p -> p.device().equals("mlx5_1") && p.txBytesPerSec() != null))
                .allMatch(p -> p.txBytesPerSec() == 0.0);
        assertThat(s.truth().endMs() - s.truth().startMs()).isGreaterThan(10 * MIN + 5 * MIN);
    }

    @Test
    void shouldPauseRdmaWhileTheHostInterfaceWritesTheCheckpoint() {
        Scenario s = Scenario.of("checkpoint");
        long firstCheckpoint = Cluster.erdma("checkpoint", 1).event(4 * MIN);
        Predicate<Long> inCheckpoint = ts -> ts > firstCheckpoint + 1000 && ts < firstCheckpoint + 75_000;
        assertThat(s.ports(p -> inCheckpoint.test(p.ts()))).isNotEmpty().allMatch(p -> p.txBytesPerSec() == 0.0);
        assertThat(s.hosts(h -> inCheckpoint.test(h.ts()))).allMatch(h -> h.txBytesPerSec() > 1e9);
        assertThat(s.truth().incidents()).isEmpty();
    }

    @Test
    void shouldDropTheLevelDuringTheEvaluationPhase() {
        Scenario s = Scenario.of("eval-phase");
        Cluster c = Cluster.mlx5("eval-phase", 1);
        double eval = s.meanTx(p -> p.ts() > c.event(5 * MIN) + 1000 && p.ts() < c.event(8 * MIN));
        double train = s.meanTx(p -> p.ts() > c.at(2 * MIN) && p.ts() < c.event(5 * MIN));
        assertThat(eval / train).isBetween(0.01, 0.1);
    }

    @Test
    void shouldStaySilentForMinutesAfterTheJobStarts() {
        Scenario s = Scenario.of("job-start");
        long start = s.truth().startMs();
        assertThat(s.ports(p -> p.ts() < start + 4 * MIN && p.txBytesPerSec() != null))
                .allMatch(p -> p.txBytesPerSec() == 0.0);
        assertThat(s.meanTx(p -> p.ts() > start + 5 * MIN)).isPositive();
    }

    @Test
    void shouldEndTrafficShortlyBeforeTheJobIsReportedSucceeded() {
        Scenario s = Scenario.of("job-end");
        JobRecord done = s.recording().jobs().stream().filter(j -> j.state().equals(JobRecord.SUCCEEDED))
                .findFirst().orElseThrow();
        long trafficEnd = Cluster.erdma("job-end", 1).event(6 * MIN);
        assertThat(done.updatedAt()).isEqualTo(trafficEnd + 5_000);
        assertThat(s.ports(p -> p.ts() > trafficEnd + 1000)).allMatch(p -> p.txBytesPerSec() == 0.0);
    }

    @Test
    void shouldPublishNothingFromTheSilentNodeAndRestartWithUnknownRates() {
        Scenario s = Scenario.of("collector-outage");
        Incident outage = s.incident(Alert.COLLECTOR_SILENT);
        Predicate<Long> during = ts -> ts >= outage.onsetMs() && ts < outage.endMs();
        assertThat(s.ports(p -> p.node().equals(outage.node()) && during.test(p.ts()))).isEmpty();
        assertThat(s.hosts(h -> h.node().equals(outage.node()) && during.test(h.ts()))).isEmpty();
        List<PortSample> resumed = s.ports(p -> p.node().equals(outage.node()) && p.ts() >= outage.endMs()
                && p.ts() < outage.endMs() + 1000);
        assertThat(resumed).hasSize(2).allMatch(p -> p.txBytesPerSec() == null);
        assertThat(s.meanTx(p -> !p.node().equals(outage.node()) && during.test(p.ts()))).isPositive();
    }

    @Test
    void shouldKeepTrafficOnTheSharedNicAfterTheSmallJobHangs() {
        Scenario s = Scenario.of("shared-nic");
        Incident hang = s.incident(Alert.STALLED_SYNC);
        assertThat(hang.expect()).isEqualTo(Incident.NONE);
        assertThat(s.ports(p -> p.device().equals("mlx5_1") && p.ts() > hang.onsetMs() + 1000))
                .allMatch(p -> p.txBytesPerSec() > 0);
        assertThat(s.recording().jobs().stream().filter(j -> j.state().equals(JobRecord.RUNNING))
                .filter(j -> j.ranks().stream().anyMatch(r -> r.devices().contains("mlx5_1")))).hasSize(2);
    }

    @Test
    void shouldSilenceOnlyTheHungJobsPortsWhenJobsRunConcurrently() {
        Scenario s = Scenario.of("concurrent-jobs");
        Incident hang = s.incident(Alert.STALLED_SYNC);
        Predicate<PortSample> after = p -> p.ts() > hang.onsetMs() + 1000;
        Predicate<PortSample> bertPorts = p -> p.node().equals("gpu-node-5") || p.node().equals("gpu-node-6");
        assertThat(s.ports(after.and(bertPorts))).allMatch(p -> p.txBytesPerSec() == 0.0);
        assertThat(s.ports(after.and(bertPorts.negate()))).allMatch(p -> p.txBytesPerSec() > 0);
        assertThat(s.incident(Alert.STRAGGLER).node()).isEqualTo("gpu-node-4");
    }

    /** A recorded scenario with queries over its samples. */
    private record Scenario(ScenarioRecorder.Recording recording) {
        static Scenario of(String name) {
            return new Scenario(ScenarioRecorder.record(ScenarioCatalog.get(name, 1)));
        }

        GroundTruth truth() {
            return recording.truth();
        }

        Incident incident(String type) {
            return truth().incidents().stream().filter(i -> i.type().equals(type)).findFirst().orElseThrow();
        }

        List<PortSample> ports(Predicate<PortSample> filter) {
            return recording.portSamples().stream().filter(filter).toList();
        }

        List<HostIfaceSample> hosts(Predicate<HostIfaceSample> filter) {
            return recording.hostSamples().stream().filter(filter).toList();
        }

        boolean onPort(PortSample p, Incident i) {
            return p.node().equals(i.node()) && p.device().equals(i.device()) && p.port() == i.port();
        }

        double meanTx(Predicate<PortSample> filter) {
            return ports(filter.and(p -> p.txBytesPerSec() != null)).stream()
                    .mapToDouble(PortSample::txBytesPerSec).average().orElseThrow();
        }
    }
}
