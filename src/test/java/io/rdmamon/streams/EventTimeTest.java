package io.rdmamon.streams;

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
import java.util.function.IntToLongFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Event time is the records' own: a sample's {@code ts}, a job record's {@code updatedAt}, whatever the record
 * timestamp says. The same training traffic with a hang gives the same alerts and job-bandwidth windows when the
 * records carry those times, the time they were sent (a generic producer, kcat, a bridge: a backlog sent months
 * later in a few seconds) or the broker's append time.
 */
class EventTimeTest {
    static final long T0 = 1_700_000_000_000L;
    /** When the backlog was sent: 300 days after it was recorded. */
    static final long SENT = T0 + 300L * 86_400_000;

    @TempDir
    Path stateDir;

    private record Outputs(List<String> alerts, List<Long> windows) {
    }

    /** The outputs with the i-th record's timestamp {@code recordTimestamp(i)}, or its own time when null. */
    private Outputs run(String name, IntToLongFunction recordTimestamp) {
        TrainingTraffic sim = new TrainingTraffic();
        long hang = T0 + 300_000;
        TrainingTraffic.Job job = sim.job("uid-a", List.of("n1", "n2"), List.of("mlx5_0", "mlx5_1"))
                .trains(T0 + 10_000, Long.MAX_VALUE).pause(hang, hang + 60_000);
        sim.record(job, JobRecord.RUNNING, T0);
        List<TrainingTraffic.Event> events = sim.run(T0, hang + 120_000);
        try (TopologyHarness h = new TopologyHarness(stateDir.resolve(name), T0, Map.of())) {
            h.feed(events, 0, recordTimestamp == null ? i -> events.get(i).ts() : recordTimestamp);
            return new Outputs(h.alerts.stream().map(a -> a.type() + " " + a.status() + " " + a.startsAt() + " "
                    + a.detectedAt()).toList(), h.bandwidth.stream().map(JobBandwidth::windowStart).toList());
        }
    }

    @Test
    void shouldGiveTheSameAlertsAndWindowsWhateverTheRecordTimestamps() {
        Outputs own = run("own", null);
        Outputs sent = run("sent", i -> SENT + i / 100);
        Outputs appended = run("appended", i -> SENT);

        assertThat(own.alerts()).anyMatch(a -> a.startsWith(Alert.STALLED_SYNC + " " + Alert.FIRING));
        assertThat(own.windows()).hasSizeGreaterThan(30);
        assertThat(sent).isEqualTo(own);
        assertThat(appended).isEqualTo(own);
    }

    /** A job on one node and NIC, Running from T0 and training from 10 s later, for a minute. */
    private static List<TrainingTraffic.Event> oneNodeTraining() {
        TrainingTraffic sim = new TrainingTraffic();
        sim.record(sim.job("uid-a", List.of("n1"), List.of("mlx5_0")).trains(T0 + 10_000, Long.MAX_VALUE),
                JobRecord.RUNNING, T0);
        return sim.run(T0, T0 + 60_000);
    }

    /** The record timestamps stay a cross-check: the difference from each record's own time is measured per topic. */
    @Test
    void shouldMeasureHowFarRecordTimestampsAreFromTheRecordsOwnTimes() {
        List<TrainingTraffic.Event> events = oneNodeTraining();
        try (TopologyHarness h = new TopologyHarness(stateDir.resolve("skew"), T0, Map.of())) {
            h.feed(events, 0, i -> SENT);
            var skew = h.registry.find("rdmamon.streams.record.timestamp.skew").tag("topic", h.cfg.topics()
                    .portSamples()).summary();
            assertThat(skew).isNotNull();
            assertThat(skew.count()).isEqualTo(events.stream().filter(e -> e.port() != null).count());
            assertThat(skew.max()).isCloseTo((SENT - T0) / 1000.0, org.assertj.core.data.Offset.offset(1.0));
        }
    }

    /**
     * A job record that reaches the app after the samples of its time (a backlog in which the samples went first)
     * cannot give them the job any more: that is counted, and logged when it is more than a start-up's seconds.
     */
    @Test
    void shouldCountAJobRecordThatCameAfterTheSamplesOfItsTime() {
        List<TrainingTraffic.Event> events = oneNodeTraining();
        try (TopologyHarness h = new TopologyHarness(stateDir.resolve("late"), T0, Map.of())) {
            h.feed(events.stream().filter(e -> e.job() == null).toList());
            assertThat(h.counter("rdmamon.streams.late.job.assignments")).isZero();
            h.feed(events.stream().filter(e -> e.job() != null).toList());
            assertThat(h.counter("rdmamon.streams.late.job.assignments")).isEqualTo(2); // the device and the node
            assertThat(h.bandwidth).isEmpty();
        }
    }
}
