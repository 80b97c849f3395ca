package io.rdmamon.detect;

import io.rdmamon.jobs.Holder;
import io.rdmamon.jobs.JobEvent;
import io.rdmamon.jobs.JobSample;
import io.rdmamon.jobs.PortTraffic;
import io.rdmamon.model.PortSample;
import io.rdmamon.streams.StreamsAppConfig;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * STALLED_SYNC's learned gaps do not depend on the order in which nodes' samples arrive. Samples come node pass by
 * node pass in arrival order, and one node's pass can arrive after another node's next pass (a slower collector or
 * partition). Two nodes sample at different points of the second (n1 at .000, n2 at .500); the job accumulates
 * gradients: an all-reduce burst of 300 ms every 6 s, which n2's sample sees one second before n1's does.
 */
class StallDetectorArrivalOrderTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final long PERIOD = 6_000;
    private static final long HANG = T0 + 600_000;
    private static final Holder HOLDER = new Holder("uid-a", "job-a", "team-a", List.of(), 2);

    private record Arrival(long arrivesAt, JobEvent event) {
    }

    @Test
    void shouldDetectAHangAsEarlyWhenOneNodesSamplesArriveAfterTheOtherNodesNextPass() {
        Observation inOrder = stall(0);
        Observation n2Late = stall(1_200);

        // the last burst came 5.9 s before the hang; 1.7 x the learned 5 s gaps after it
        assertThat(inOrder.at() - HANG).as("detected after the hang, within the learned threshold")
                .isBetween(2_000L, 6_000L);
        assertThat(n2Late.condition().labels()).as("the late node's bursts end the learned gaps as early as in order")
                .containsEntry("longestQuietMs", inOrder.condition().labels().get("longestQuietMs"))
                .containsEntry("thresholdSeconds", inOrder.condition().labels().get("thresholdSeconds"));
        assertThat(n2Late.condition().since()).isEqualTo(inOrder.condition().since());
        // n1's sample that crosses the threshold arrives before n2's, which is late: one sample of n1 later at most
        assertThat(n2Late.at() - inOrder.at()).isBetween(0L, 1_000L);
    }

    /** STALLED_SYNC's first observation, with n2's samples arriving {@code n2DelayMs} after they were taken. */
    private static Observation stall(long n2DelayMs) {
        StallDetector detector = new StallDetector(new StreamsAppConfig(Map.of()).detectors());
        List<Arrival> arrivals = new ArrayList<>();
        for (long t = T0 + 1_000; t < HANG + 60_000; t += 1_000) {
            for (String device : List.of("mlx5_0", "mlx5_1")) {
                arrivals.add(new Arrival(t, port("n1", device, t)));
                arrivals.add(new Arrival(t + 500 + n2DelayMs, port("n2", device, t + 500)));
            }
        }
        arrivals.sort(Comparator.comparingLong(Arrival::arrivesAt));
        StallState state = null;
        for (Arrival a : arrivals) {
            long ts = a.event().port().traffic().ts();
            Result<StallState> result = detector.inspect(state, a.event(), ts);
            if (result != null) {
                state = result.state();
                for (Observation o : result.observations()) {
                    if (o.condition() != null) {
                        return o;
                    }
                }
            }
        }
        throw new AssertionError("no stall detected");
    }

    /** A port sample over the second ending at {@code ts}: busy for the part of it a burst covers. */
    private static JobEvent port(String node, String device, long ts) {
        double rate = 0;
        if (ts - 1_000 < HANG) {
            for (long burst = T0 + 100; burst < Math.min(ts, HANG); burst += PERIOD) {
                long overlap = Math.min(ts, burst + 300) - Math.max(ts - 1_000, burst);
                rate += overlap > 0 ? 10e9 * overlap / 1_000 : 0;
            }
        }
        PortSample sample = new PortSample(PortSample.VERSION, node, device, 1, ts, 1_000, PortSample.SOURCE_SYSFS,
                "ACTIVE", "LinkUp", "Ethernet", 25_000_000_000L / 8, rate / 2, rate / 2, rate / 8192, rate / 8192, Map.of(),
                Map.of());
        return JobEvent.of(new JobSample(PortTraffic.of(sample), HOLDER, 1));
    }
}
