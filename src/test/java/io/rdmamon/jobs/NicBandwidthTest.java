package io.rdmamon.jobs;

import io.rdmamon.model.JobBandwidth;
import io.rdmamon.model.JobRecord;
import io.rdmamon.streams.StreamsAppConfig;
import io.rdmamon.testing.TopologyHarness;
import io.rdmamon.testing.TrainingTraffic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * "Did RDMA help?": the per-NIC figures of rdma.job-bandwidth through the whole topology. 2 nodes × 2 eRDMA ports;
 * bursts of 10 GB/s each way for 400 ms of every second make 4 GB/s per port and direction. n1 is an
 * {@code ecs.ebmgn7ex} (its label on the job record), n2's instance type is unknown.
 */
class NicBandwidthTest {
    static final long T0 = 1_700_000_000_000L;
    static final List<String> NODES = List.of("n1", "n2");
    static final List<String> DEVICES = List.of("erdma_0", "erdma_1");

    @TempDir
    Path stateDir;

    /** The job's windows from its second minute on (its first windows hold its start). */
    private List<JobBandwidth> run(Map<String, ?> settings, Map<String, String> instanceTypes) {
        TrainingTraffic sim = new TrainingTraffic();
        TrainingTraffic.Job job = sim.job("uid-a", NODES, DEVICES).trains(T0 + 5_000, Long.MAX_VALUE);
        JobRecord plain = job.record(JobRecord.RUNNING, T0);
        JobRecord labelled = new JobRecord(plain.v(), plain.uid(), plain.job(), plain.namespace(), plain.state(),
                plain.updatedAt(), plain.startedAt(), plain.worldSize(), plain.ranks().stream()
                .map(r -> new JobRecord.Rank(r.rank(), r.pod(), r.node(), r.devices(), instanceTypes.get(r.node())))
                .toList(), plain.labels());
        List<TrainingTraffic.Event> events = new ArrayList<>(sim.run(T0, T0 + 120_000));
        events.add(new TrainingTraffic.Event(T0, null, null, labelled));
        events.sort(Comparator.comparingLong(TrainingTraffic.Event::ts).thenComparing(e -> e.job() == null));
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, settings)) {
            h.feed(events);
            return h.bandwidth.stream().filter(b -> b.windowStart() >= T0 + 60_000).toList();
        }
    }

    @Test
    void shouldAverageTheBusierDirectionOverTheJobsPortsAndTheirExpectedFiguresByInstanceThenDeviceType() {
        List<JobBandwidth> windows = run(Map.of(
                StreamsAppConfig.NIC_EXPECTED_INSTANCE_TYPES_CONFIG, "ecs.ebmgn7ex=14.4e9,ecs.gn7i=3e9",
                StreamsAppConfig.NIC_EXPECTED_DEVICE_TYPES_CONFIG, "erdma=12e9,mlx5=24e9"), Map.of("n1", "ecs.ebmgn7ex"));

        assertThat(windows).hasSizeGreaterThanOrEqualTo(5).allSatisfy(b -> {
            assertThat(b.nicBytesPerSec()).isCloseTo(4e9, within(4e7));
            // n1's two ports by their instance type, n2's by their device type
            assertThat(b.expectedNicBytesPerSec()).isCloseTo((2 * 14.4e9 + 2 * 12e9) / 4, within(1.0));
        });
    }

    @Test
    void shouldLeaveTheExpectedFigureOutUnlessEveryPortHasOne() {
        List<JobBandwidth> partly = run(Map.of(StreamsAppConfig.NIC_EXPECTED_INSTANCE_TYPES_CONFIG,
                "ecs.ebmgn7ex=14.4e9"), Map.of("n1", "ecs.ebmgn7ex"));
        List<JobBandwidth> unconfigured = run(Map.of(), Map.of("n1", "ecs.ebmgn7ex", "n2", "ecs.ebmgn7ex"));

        assertThat(partly).isNotEmpty().allSatisfy(b -> {
            assertThat(b.nicBytesPerSec()).isCloseTo(4e9, within(4e7));
            assertThat(b.expectedNicBytesPerSec()).isNull();
        });
        assertThat(unconfigured).isNotEmpty().allSatisfy(b -> assertThat(b.expectedNicBytesPerSec()).isNull());
    }

    @Test
    void shouldTakeTheDeviceTypeFromTheNameWithoutItsIndexAndRefuseEntriesWithoutAFigure() {
        assertThat(List.of("mlx5_1", "erdma_0", "rxe0", "hfi1_12").stream().map(NicExpectations::deviceType))
                .containsExactly("mlx5", "erdma", "rxe", "hfi1");
        assertThat(NicExpectations.parse(List.of("ecs.ebmgn7ex=14.4e9", " mlx5 = 2.4E10 ")))
                .isEqualTo(Map.of("ecs.ebmgn7ex", 14.4e9, "mlx5", 2.4e10));
        for (String bad : List.of("ecs.ebmgn7ex", "=1e9", "mlx5=fast", "mlx5=0", "mlx5=-1")) {
            assertThatThrownBy(() -> NicExpectations.parse(List.of(bad)))
                    .as(bad).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(bad);
        }
    }
}
