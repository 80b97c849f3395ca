package io.rdmamon.scenario;

import io.rdmamon.model.Alert;
import io.rdmamon.sim.CheckpointSchedule;
import io.rdmamon.sim.DataLoading;
import io.rdmamon.sim.Fault;
import io.rdmamon.sim.Phase;
import io.rdmamon.sim.TrafficProfile;
import io.rdmamon.sim.TrainingJobSpec;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * The labelled scenarios of {@code rdmamon simulate}. Each runs on a small cluster (four nodes, two single-port NICs
 * each) from {@link Cluster#EPOCH}; jobs start training 45 s after they are Running (NCCL init) and have trained
 * for minutes before any fault, so detectors have learned their pattern. The default job is communication-bound: 800 ms
 * iterations with 500 ms bursts at 60 % of line rate (sub-second gaps).
 */
public final class ScenarioCatalog {
    private static final long MIN = 60_000;
    private static final long SEC = 1_000;
    private static final Map<String, LongFunction<ScenarioSpec>> SCENARIOS = new LinkedHashMap<>();

    static {
        SCENARIOS.put("healthy", ScenarioCatalog::healthy);
        SCENARIOS.put("hang", ScenarioCatalog::hang);
        SCENARIOS.put("long-gaps-hang", ScenarioCatalog::longGapsHang);
        SCENARIOS.put("straggler", ScenarioCatalog::straggler);
        SCENARIOS.put("missing-rank", ScenarioCatalog::missingRank);
        SCENARIOS.put("degraded-link", ScenarioCatalog::degradedLink);
        SCENARIOS.put("degraded-downshift", ScenarioCatalog::downshift);
        SCENARIOS.put("link-flap", ScenarioCatalog::linkFlap);
        SCENARIOS.put("link-down", ScenarioCatalog::linkDown);
        SCENARIOS.put("idle-link", ScenarioCatalog::idleLink);
        SCENARIOS.put("checkpoint", ScenarioCatalog::checkpoint);
        SCENARIOS.put("eval-phase", ScenarioCatalog::evalPhase);
        SCENARIOS.put("job-start", ScenarioCatalog::jobStart);
        SCENARIOS.put("job-end", ScenarioCatalog::jobEnd);
        SCENARIOS.put("collector-outage", ScenarioCatalog::collectorOutage);
        SCENARIOS.put("shared-nic", ScenarioCatalog::sharedNic);
        SCENARIOS.put("concurrent-jobs", ScenarioCatalog::concurrentJobs);
        SCENARIOS.put("tcp-fallback", ScenarioCatalog::tcpFallback);
        SCENARIOS.put("tcp-fallback-switch", ScenarioCatalog::tcpFallbackSwitch);
        SCENARIOS.put("data-loader", ScenarioCatalog::dataLoader);
        SCENARIOS.put("acs-p16en", AcsScenarios::p16en);
        SCENARIOS.put("acs-gu8tf", AcsScenarios::gu8tf);
    }

    private ScenarioCatalog() {
    }

    public static List<String> names() {
        return List.copyOf(SCENARIOS.keySet());
    }

    /** The scenario for seed 1. */
    public static ScenarioSpec get(String name) {
        return get(name, 1);
    }

    /** The scenario; the seed moves its fault onsets by up to 10 s (see {@link Cluster#event}). */
    public static ScenarioSpec get(String name, long seed) {
        LongFunction<ScenarioSpec> scenario = SCENARIOS.get(name);
        if (scenario == null) {
            throw new IllegalArgumentException("unknown scenario '" + name + "'; known: " + String.join(", ", names()));
        }
        return scenario.apply(seed);
    }

    private static ScenarioSpec healthy(long seed) {
        Cluster c = Cluster.mlx5("healthy", seed);
        return c.spec("Healthy training: one 4-rank job on 8 NICs, sub-second iteration gaps. No alert expected.",
                10 * MIN, c.mainJob(c.training()));
    }

    private static ScenarioSpec hang(long seed) {
        Cluster c = Cluster.mlx5("hang", seed);
        long onset = c.event(6 * MIN);
        SimulatedJob job = c.mainJob(c.training().withFault(new Fault.Hang(onset, null)));
        return c.spec("Hang: every rank of the job goes quiet at 6 min and stays quiet (job still Running).",
                10 * MIN, job, c.jobIncident(Alert.STALLED_SYNC, job, onset, "all ranks quiet"));
    }

    private static ScenarioSpec longGapsHang(long seed) {
        Cluster c = Cluster.mlx5("long-gaps-hang", seed);
        long onset = c.event(7 * MIN);
        TrainingJobSpec accumulating = TrainingJobSpec.steady(4, 2, c.at(45 * SEC),
                TrafficProfile.of(6000, 800, c.link(), 0.6)).withFault(new Fault.Hang(onset, null));
        SimulatedJob job = c.mainJob(accumulating);
        return c.spec("Long gaps, then a hang: the job accumulates gradients (6 s iterations, 5.2 s quiet between"
                        + " bursts: whole quiet samples are normal) and hangs at 7 min.",
                10 * MIN, job, c.jobIncident(Alert.STALLED_SYNC, job, onset, "quiet beyond the learned gaps"));
    }

    private static ScenarioSpec straggler(long seed) {
        Cluster c = Cluster.mlx5("straggler", seed);
        long onset = c.event(5 * MIN);
        SimulatedJob job = c.mainJob(c.training().withFault(new Fault.Straggler(2, 0.5, 0.85, onset, null)));
        return c.spec("Straggler: from 5 min rank 2 (gpu-node-3) carries half its peers' bytes, the job slows 15 %.",
                10 * MIN, job, c.rankIncident(Alert.STRAGGLER, job, 2, onset, "rank 2 at half share"));
    }

    private static ScenarioSpec missingRank(long seed) {
        Cluster c = Cluster.mlx5("missing-rank", seed);
        long onset = c.event(5 * MIN);
        SimulatedJob job = c.mainJob(c.training().withFault(new Fault.MissingRank(3, 0.2, onset, null)));
        return c.spec("Missing rank: from 5 min rank 3 (gpu-node-4) sends no RDMA traffic (NCCL fell back to TCP:"
                        + " its host interface carries it) while its peers go on at a fifth of their rate.",
                10 * MIN, job, c.rankIncident(Alert.STRAGGLER, job, 3, onset, "rank 3 RDMA traffic missing"));
    }

    private static ScenarioSpec degradedLink(long seed) {
        return degradedPort(seed, "degraded-link", 0, "errors + throughput", "Degraded link: from 5 min"
                + " gpu-node-2/mlx5_0 retransmits ~400/s and drops ~40/s; its throughput falls to 60 % of its peers'"
                + " and the job slows 20 %.", at -> new Fault.DegradedLink(1, 0, 0.6, 0.8, 400, 40, at, null));
    }

    private static ScenarioSpec downshift(long seed) {
        return degradedPort(seed, "degraded-downshift", 1, "rate below nominal", "Speed downshift: at 5 min"
                + " gpu-node-2/mlx5_1 retrains from 200 to 50 Gb/s; the whole ring slows to that link's pace.",
                at -> new Fault.SpeedDownshift(1, 1, Cluster.gbps(50), at, null));
    }

    /** A fault from 5 min on rank 1's device {@code device}: LINK_DEGRADED expected, a straggler alert tolerated. */
    private static ScenarioSpec degradedPort(long seed, String name, int device, String note, String description,
                                             LongFunction<Fault> faultAt) {
        Cluster c = Cluster.mlx5(name, seed);
        long onset = c.event(5 * MIN);
        SimulatedJob job = c.mainJob(c.training().withFault(faultAt.apply(onset)));
        return c.spec(description, 10 * MIN, job,
                c.portIncident(Alert.LINK_DEGRADED, job, 1, device, onset, null, note),
                c.rankIncident(Alert.STRAGGLER, job, 1, onset, "side effect").withExpect(Incident.TOLERATE));
    }

    private static ScenarioSpec linkFlap(long seed) {
        Cluster c = Cluster.mlx5("link-flap", seed);
        long onset = c.event(5 * MIN);
        long end = c.event(7 * MIN);
        SimulatedJob job = c.mainJob(c.training().withFault(new Fault.LinkFlap(2, 0, 3 * SEC, 17 * SEC, onset, end)));
        return c.spec("Link flap: from 5 to 7 min gpu-node-3/mlx5_0 goes down for 3 s every 20 s (link_downed"
                        + " increments); the job blocks while it is down. The 3 s blocks are not a stall.",
                10 * MIN, job, c.portIncident(Alert.LINK_DOWN, job, 2, 0, onset, end, "flapping"),
                c.portIncident(Alert.LINK_DEGRADED, job, 2, 0, onset, end, "flap").withExpect(Incident.TOLERATE),
                c.rankIncident(Alert.STRAGGLER, job, 2, onset, "side effect").withExpect(Incident.TOLERATE));
    }

    private static ScenarioSpec linkDown(long seed) {
        Cluster c = Cluster.mlx5("link-down", seed);
        long onset = c.event(6 * MIN);
        SimulatedJob job = c.mainJob(c.training().withFault(new Fault.LinkDown(3, 1, true, onset, null)));
        return c.spec("Link down: at 6 min gpu-node-4/mlx5_1 goes down for good; the job's collective blocks.",
                10 * MIN, job, c.portIncident(Alert.LINK_DOWN, job, 3, 1, onset, null, "port DOWN"),
                c.jobIncident(Alert.STALLED_SYNC, job, onset, "collective blocked by the dead link"),
                c.rankIncident(Alert.STRAGGLER, job, 3, onset, "side effect").withExpect(Incident.TOLERATE));
    }

    private static ScenarioSpec idleLink(long seed) {
        Cluster c = Cluster.mlx5("idle-link", seed);
        TrainingJobSpec oneRail = TrainingJobSpec.steady(4, 1, c.at(45 * SEC), c.profile());
        SimulatedJob job = c.mainJob(oneRail);
        Incident[] idle = new Incident[4];
        for (int r = 0; r < 4; r++) {
            idle[r] = c.portIncident(Alert.LINK_IDLE, job, r, 1, c.at(0), null,
                    "allocated, never used (NCCL_IB_HCA=mlx5_0); onset = Running, so latency includes the idle time");
        }
        return c.spec("Idle allocated link: the job holds mlx5_0 and mlx5_1 on each node but only uses mlx5_0;"
                + " mlx5_1 stays idle for the whole 16 min.", 16 * MIN, job, idle);
    }

    private static ScenarioSpec checkpoint(long seed) {
        Cluster c = Cluster.erdma("checkpoint", seed);
        SimulatedJob job = c.mainJob(c.training().withCheckpoints(
                new CheckpointSchedule(c.event(4 * MIN), 5 * MIN, 75 * SEC, 1.5e9)));
        return c.spec("Checkpoint pauses (eRDMA): every 5 min from 4 min all ranks stop RDMA for 75 s while their host"
                + " interface sends 1.5 GB/s to storage. No alert expected.", 20 * MIN, job);
    }

    private static ScenarioSpec evalPhase(long seed) {
        Cluster c = Cluster.mlx5("eval-phase", seed);
        TrafficProfile eval = TrafficProfile.of(2000, 150, c.link(), 0.3);
        SimulatedJob job = c.mainJob(c.training().withPhase(
                new Phase("evaluation", c.event(5 * MIN), c.event(8 * MIN), eval)));
        return c.spec("Evaluation phase: from 5 to 8 min the job evaluates (2 s period, short bursts at 30 % of line"
                + " rate: a few % of the training level), then trains again. No alert expected.", 12 * MIN, job);
    }

    private static ScenarioSpec jobStart(long seed) {
        Cluster c = Cluster.mlx5("job-start", seed);
        TrainingJobSpec slowStart = TrainingJobSpec.steady(4, 2, c.at(4 * MIN), c.profile());
        return c.spec("Job start: Running at 0 but silent for 4 min (image pull, NCCL init), then trains."
                + " No alert expected.", 10 * MIN, c.mainJob(slowStart));
    }

    private static ScenarioSpec jobEnd(long seed) {
        Cluster c = Cluster.erdma("job-end", seed);
        SimulatedJob job = SimulatedJob.create("job-end", Cluster.MAIN_JOB, Cluster.NAMESPACE, c.mainRanks(), c.at(0),
                c.event(6 * MIN + 5 * SEC), c.training().endingAt(c.event(6 * MIN)));
        return c.spec("Job end (eRDMA): traffic stops at 6 min; the job is reported Succeeded 5 s later."
                + " No alert expected.", 10 * MIN, job);
    }

    private static ScenarioSpec collectorOutage(long seed) {
        Cluster c = Cluster.erdma("collector-outage", seed);
        SimulatedJob job = c.mainJob(c.training());
        CollectorOutage outage = new CollectorOutage("gpu-node-2", c.event(5 * MIN), c.event(8 * MIN));
        return c.spec("Collector outage (eRDMA): gpu-node-2's collector publishes nothing from 5 to 8 min while"
                        + " training goes on. A silent collector, not a stall or a missing rank.",
                10 * MIN, List.of(job), List.of(outage),
                new Incident(Alert.COLLECTOR_SILENT, Incident.ALERT, null, null, outage.node(), null, null,
                        outage.fromMs(), outage.untilMs(), "no samples from the node"));
    }

    private static ScenarioSpec sharedNic(long seed) {
        Cluster c = Cluster.mlx5("shared-nic", seed);
        SimulatedJob big = c.mainJob(c.training());
        long hangs = c.event(6 * MIN);
        TrainingJobSpec smallTraffic = TrainingJobSpec.steady(2, 1, c.at(60 * SEC),
                        TrafficProfile.of(1500, 400, c.link(), 0.2))
                .withFault(new Fault.Hang(hangs, null));
        SimulatedJob small = c.job("bert-finetune", List.of("gpu-node-1", "gpu-node-2"), List.of("mlx5_1"),
                smallTraffic);
        return c.spec("Shared NIC: bert-finetune runs on mlx5_1 of nodes 1-2, shared with llama-pretrain, and hangs"
                        + " at 6 min. Its figures are estimates from shared devices only: no stall alert allowed.",
                10 * MIN, List.of(big, small), List.of(),
                c.jobIncident(Alert.STALLED_SYNC, small, hangs, "visible only in estimated figures")
                        .withExpect(Incident.NONE));
    }

    private static ScenarioSpec concurrentJobs(long seed) {
        Cluster c = Cluster.mlx5("concurrent-jobs", 6, seed);
        TrainingJobSpec a = TrainingJobSpec.steady(4, 1, c.at(45 * SEC), c.profile());
        long straggles = c.event(5 * MIN);
        long hangs = c.event(6 * MIN);
        TrainingJobSpec v = TrainingJobSpec.steady(4, 1, c.at(40 * SEC), TrafficProfile.of(600, 350, c.link(), 0.5))
                .withFault(new Fault.Straggler(3, 0.5, 0.9, straggles, null));
        TrainingJobSpec b = TrainingJobSpec.steady(2, 2, c.at(50 * SEC), TrafficProfile.of(2500, 700, c.link(), 0.5))
                .withFault(new Fault.Hang(hangs, null));
        SimulatedJob llama = c.job(Cluster.MAIN_JOB, Cluster.NODES, List.of("mlx5_0"), a);
        SimulatedJob vit = c.job("vit-train", Cluster.NODES, List.of("mlx5_1"), v);
        SimulatedJob bert = c.job("bert-finetune", List.of("gpu-node-5", "gpu-node-6"), List.of("mlx5_0", "mlx5_1"),
                b);
        return c.spec("Concurrent jobs on 6 nodes: llama-pretrain (mlx5_0 of nodes 1-4) stays healthy; vit-train"
                        + " (mlx5_1 of nodes 1-4) has a straggler on gpu-node-4 from 5 min; bert-finetune (nodes 5-6,"
                        + " both NICs, 1.8 s gaps) hangs at 6 min.",
                10 * MIN, List.of(llama, vit, bert), List.of(),
                c.jobIncident(Alert.STALLED_SYNC, bert, hangs, "bert-finetune quiet"),
                c.rankIncident(Alert.STRAGGLER, vit, 3, straggles, "vit-train rank 3 at half share"));
    }

    private static ScenarioSpec tcpFallback(long seed) {
        Cluster c = Cluster.erdma("tcp-fallback", seed);
        SimulatedJob job = c.mainJob(c.training().withFault(new Fault.TcpFallback(0.3, c.at(0), null)));
        return c.spec("TCP fallback from the start (eRDMA): the job holds erdma_0 and erdma_1 on each node but NCCL"
                        + " runs over sockets on eth0 from its first iteration (no RDMA libraries in the image): its"
                        + " RDMA ports stay idle, eth0 carries up to 3 GB/s each way in training bursts.",
                10 * MIN, job, c.jobIncident(Alert.TCP_FALLBACK, job, c.at(0),
                        "NCCL over sockets from the start; onset = Running, so latency includes NCCL init"));
    }

    private static ScenarioSpec tcpFallbackSwitch(long seed) {
        Cluster c = Cluster.mlx5("tcp-fallback-switch", seed);
        long onset = c.event(5 * MIN);
        SimulatedJob job = c.mainJob(c.training().withFault(new Fault.TcpFallback(0.3, onset, null)));
        return c.spec("TCP fallback mid-job: at 5 min the RDMA traffic stops on every port and eth0 of every node"
                        + " takes it over at TCP speed (a restarted communicator fell back to sockets).",
                10 * MIN, job, c.jobIncident(Alert.TCP_FALLBACK, job, onset, "host network takes over from RDMA"));
    }

    private static ScenarioSpec dataLoader(long seed) {
        Cluster c = Cluster.mlx5("data-loader", seed);
        SimulatedJob job = c.mainJob(c.training().withDataLoading(new DataLoading(10 * SEC, 8 * SEC, 1.5e9, 40e6)));
        return c.spec("Busy data loader: the job trains over RDMA while each node reads shards over eth0, 1.5 GB/s"
                + " in for 8 s of every 10 s (40 MB/s out). No alert expected.", 10 * MIN, job);
    }
}
