package io.rdmamon.streams;

import io.rdmamon.jobs.SocketPorts;
import io.rdmamon.model.Alert;
import io.rdmamon.model.JobBandwidth;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.PodIdentity;
import io.rdmamon.testing.TopologyHarness;
import io.rdmamon.testing.TrainingTraffic;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ACS serverless GPU jobs through the whole topology, each pod monitored from inside (its node is the pod's identity,
 * as the in-pod collector and {@code jobs watch} both name it):
 * <ul>
 *   <li>{@code p16en}: P16EN, NCCL over sockets on eth0 as the platform intends (2 GB/s each way), an RDMA device
 *       visible in the pod but idle; it hangs at +150 s;</li>
 *   <li>{@code gu8tf}: GU8TF over RDMA (mlx5_0), hangs at +150 s;</li>
 *   <li>{@code gu8tf-tcp}: GU8TF whose NCCL fell back to sockets: mlx5_0 idle, eth0 busy.</li>
 * </ul>
 * All three end at +200 s, and their pods' collectors stop with them. A fourth, {@code lost}, runs on; the collector
 * in its worker-1 dies at +100 s.
 */
class AcsJobsEndToEndTest {
    static final long T0 = 1_700_000_000_000L;
    static final long HANG = T0 + 150_000;
    static final long END = T0 + 200_000;
    static final double SOCKET_EACH_WAY = 2e9;
    static final long LOST = T0 + 100_000;

    @TempDir
    static Path stateDir;
    static TopologyHarness run;

    static List<String> pods(String job) {
        return List.of(PodIdentity.node("ml", job + "-worker-0"), PodIdentity.node("ml", job + "-worker-1"));
    }

    static JobRecord acsRecord(String uid, List<String> nodes, String device, String model, boolean socket,
                               String state, long at) {
        List<JobRecord.Rank> ranks = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            ranks.add(new JobRecord.Rank(i, uid + "-worker-" + i, nodes.get(i), List.of(device), model));
        }
        return new JobRecord(JobRecord.VERSION, uid, uid, "ml", state, at, T0, ranks.size(), ranks,
                socket ? Map.of(SocketPorts.TRANSPORT_LABEL, SocketPorts.SOURCE) : Map.of());
    }

    @BeforeAll
    static void runJobs() {
        TrainingTraffic sim = new TrainingTraffic();
        List<TrainingTraffic.Event> events = new ArrayList<>();
        // P16EN: no RDMA traffic of the job; its collectives are eth0's traffic
        for (String node : pods("p16en")) {
            sim.sparePort(node, "mlx5_0");
            sim.hostBurst(node, T0 + 5_000, HANG, SOCKET_EACH_WAY, SOCKET_EACH_WAY);
        }
        // GU8TF over RDMA, and GU8TF fallen back to sockets
        sim.job("gu8tf", pods("gu8tf"), List.of("mlx5_0")).trains(T0 + 5_000, HANG);
        sim.job("gu8tf-tcp", pods("gu8tf-tcp"), List.of("mlx5_0")).trains(Long.MAX_VALUE, Long.MAX_VALUE);
        pods("gu8tf-tcp").forEach(n -> sim.hostBurst(n, T0 + 5_000, END, SOCKET_EACH_WAY, SOCKET_EACH_WAY));
        sim.job("lost", pods("lost"), List.of("mlx5_0")).trains(T0 + 5_000, Long.MAX_VALUE);
        sim.silence(pods("lost").get(1), LOST, Long.MAX_VALUE);
        events.add(new TrainingTraffic.Event(T0, null, null,
                acsRecord("lost", pods("lost"), "mlx5_0", "GU8TF", false, JobRecord.RUNNING, T0)));
        for (String job : List.of("p16en", "gu8tf", "gu8tf-tcp")) {
            pods(job).forEach(n -> sim.silence(n, END, Long.MAX_VALUE));
            boolean p16en = job.equals("p16en");
            String device = p16en ? "eth0" : "mlx5_0";
            String model = p16en ? "P16EN" : "GU8TF";
            events.add(new TrainingTraffic.Event(T0, null, null,
                    acsRecord(job, pods(job), device, model, p16en, JobRecord.RUNNING, T0)));
            events.add(new TrainingTraffic.Event(END, null, null,
                    acsRecord(job, pods(job), device, model, p16en, JobRecord.SUCCEEDED, END)));
        }
        events.addAll(sim.run(T0, END + 160_000)); // past the wall clock the run ends at: lost-worker-0 lives on
        events.sort(Comparator.comparingLong(TrainingTraffic.Event::ts).thenComparing(e -> e.job() == null));
        run = new TopologyHarness(stateDir, T0, Map.of(
                StreamsAppConfig.NIC_EXPECTED_INSTANCE_TYPES_CONFIG, "P16EN=2.5e9,GU8TF=20e9"));
        run.feed(events).advanceTo(END + 150_000);
    }

    @Test
    void shouldCountTheSocketTrafficOfAP16enJobAsItsBandwidth() {
        List<JobBandwidth> training = run.bandwidth.stream()
                .filter(b -> b.uid().equals("p16en") && b.windowEnd() <= HANG && b.windowStart() >= T0 + 10_000)
                .toList();

        assertThat(training).isNotEmpty().allSatisfy(b -> {
            assertThat(b.txBytesPerSec()).isCloseTo(2 * SOCKET_EACH_WAY, org.assertj.core.data.Percentage
                    .withPercentage(5));
            assertThat(b.ranksReporting()).isEqualTo(2);
            assertThat(b.ranksExpected()).isEqualTo(2);
            assertThat(b.expectedNicBytesPerSec()).isEqualTo(2.5e9);
        });
    }

    @Test
    void shouldFlagTheHangOfASocketJobAndOfAnRdmaJob() {
        assertThat(run.firing(Alert.STALLED_SYNC)).extracting(Alert::job)
                .containsExactlyInAnyOrder("p16en", "gu8tf");
        assertThat(run.firing(Alert.STALLED_SYNC)).allSatisfy(a ->
                assertThat(a.startsAt()).isBetween(HANG - 2_000, HANG + 2_000));
    }

    @Test
    void shouldFlagTcpFallbackOnlyWhereRdmaIsIntended() {
        assertThat(run.firing(Alert.TCP_FALLBACK)).extracting(Alert::job).containsOnly("gu8tf-tcp").isNotEmpty();
    }

    @Test
    void shouldReportOnlyTheCollectorThatDiedWhileItsJobRanNamingTheJob() {
        // the pods of the ended jobs stopped with them: no silent collector, and their state is dropped
        assertThat(run.firing(Alert.COLLECTOR_SILENT)).singleElement().satisfies(a -> {
            assertThat(a.node()).isEqualTo(pods("lost").get(1));
            assertThat(a.startsAt()).isBetween(LOST - 1_000, LOST + 1_000);
            assertThat(a.summary()).contains("running on it: job lost (ml)");
        });
        assertThat(run.counter("rdmamon.streams.collector.departed.pods")).isEqualTo(6);
    }
}
