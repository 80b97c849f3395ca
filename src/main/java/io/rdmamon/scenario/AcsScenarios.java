package io.rdmamon.scenario;

import io.rdmamon.jobs.SocketPorts;
import io.rdmamon.model.Alert;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.PodIdentity;
import io.rdmamon.sim.Fault;
import io.rdmamon.sim.TrafficProfile;
import io.rdmamon.sim.TrainingJobSpec;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Jobs on Alibaba Cloud ACS GPU pods (docs/acs.md): four pods per job, each monitored by a collector inside it, so
 * each pod is a "node" named {@code <namespace>.<pod>}. Both jobs hang at 5 min and are failed by NCCL's watchdog at
 * 8 min; their pods end, and with them their collectors: that is not collector silence.
 * <ul>
 *   <li>{@code acs-p16en}: P16EN, NCCL over sockets on eth0 as the platform intends, no RDMA device in the pods;</li>
 *   <li>{@code acs-gu8tf}: GU8TF over RDMA, two mlx5 NICs per pod.</li>
 * </ul>
 */
final class AcsScenarios {
    private static final String NAMESPACE = "ml-research";
    private static final long MIN = 60_000;
    private static final long TRAINING_START_MS = 45_000;
    private static final long[] CLOCK_OFFSETS_MS = {0, 137, 291, 455};

    private AcsScenarios() {
    }

    static ScenarioSpec p16en(long seed) {
        return scenario("acs-p16en", seed, "P16EN", List.of(), Cluster.gbps(25), "ACS P16EN job over sockets: 4 pods"
                + " (no RDMA device in them) train with NCCL over eth0, as the platform intends (NCCL_IB_DISABLE=1,"
                + " NCCL_SOCKET_IFNAME=eth0); every rank goes quiet at 5 min, NCCL's watchdog fails the job at 8 min"
                + " and its pods and their collectors end. Expected: STALLED_SYNC only (no TCP_FALLBACK, no"
                + " COLLECTOR_SILENT).");
    }

    static ScenarioSpec gu8tf(long seed) {
        return scenario("acs-gu8tf", seed, "GU8TF", List.of("mlx5_0", "mlx5_1"), Cluster.gbps(200), "ACS GU8TF job over"
                + " RDMA: 4 pods with two mlx5 NICs each train over RDMA; every rank goes quiet at 5 min, NCCL's"
                + " watchdog fails the job at 8 min and its pods and their collectors end. Expected: STALLED_SYNC"
                + " only (no COLLECTOR_SILENT).");
    }

    private static ScenarioSpec scenario(String name, long seed, String model, List<String> devices, long linkBytes,
                                         String description) {
        long start = Cluster.EPOCH;
        String job = "llm-" + model.toLowerCase(java.util.Locale.ROOT);
        boolean socket = devices.isEmpty();
        long hang = start + 5 * MIN;
        long failed = start + 8 * MIN;
        List<ClusterNode> nodes = new ArrayList<>();
        List<JobRecord.Rank> ranks = new ArrayList<>();
        List<CollectorOutage> ended = new ArrayList<>();
        for (int r = 0; r < CLOCK_OFFSETS_MS.length; r++) {
            String pod = r == 0 ? job + "-master-0" : job + "-worker-" + (r - 1);
            String node = PodIdentity.node(NAMESPACE, pod);
            nodes.add(new ClusterNode(node, devices, linkBytes, CLOCK_OFFSETS_MS[r]));
            ranks.add(new JobRecord.Rank(r, pod, node, socket ? List.of(ScenarioRecorder.HOST_IFACE) : devices,
                    model));
            ended.add(new CollectorOutage(node, failed, Long.MAX_VALUE));
        }
        TrainingJobSpec traffic = TrainingJobSpec.steady(ranks.size(), socket ? 1 : devices.size(),
                start + TRAINING_START_MS, TrafficProfile.of(800, 500, linkBytes, 0.6))
                .withFault(new Fault.Hang(hang, null));
        if (socket) {
            // the socket transport is this model's path from the start: the simulator's fallback puts the
            // collectives on eth0 at TCP speed
            traffic = traffic.withFault(new Fault.TcpFallback(1.0, start, null));
        }
        SimulatedJob simulated = new SimulatedJob(records(name, job, model, socket, ranks, start, failed), traffic);
        Incident stall = new Incident(Alert.STALLED_SYNC, Incident.ALERT, simulated.uid(), job, null, null, null, hang,
                failed, "every rank quiet; the job fails at 8 min");
        return new ScenarioSpec(name, description, seed, start, 10 * MIN, nodes, List.of(simulated), ended,
                List.of(stall));
    }

    /** Pending, Running, Failed: as {@code jobs watch} publishes an ACS PyTorchJob. */
    private static List<JobRecord> records(String scenario, String job, String model, boolean socket,
                                           List<JobRecord.Rank> ranks, long runningAt, long failedAt) {
        String uid = UUID.nameUUIDFromBytes((scenario + "/" + NAMESPACE + "/" + job).getBytes(StandardCharsets.UTF_8))
                .toString();
        Map<String, String> labels = new TreeMap<>(Map.of("training.kubeflow.org/job-name", job,
                "alibabacloud.com/compute-class", "gpu", "alibabacloud.com/hpn-type", "rdma",
                "alibabacloud.com/gpu-model-series", model));
        if (socket) {
            labels.put(SocketPorts.TRANSPORT_LABEL, SocketPorts.SOURCE);
        }
        return List.of(
                new JobRecord(JobRecord.VERSION, uid, job, NAMESPACE, JobRecord.PENDING,
                        runningAt - SimulatedJob.PENDING_LEAD_MS, null, ranks.size(), List.of(), labels),
                new JobRecord(JobRecord.VERSION, uid, job, NAMESPACE, JobRecord.RUNNING, runningAt, runningAt,
                        ranks.size(), ranks, labels),
                new JobRecord(JobRecord.VERSION, uid, job, NAMESPACE, JobRecord.FAILED, failedAt, runningAt,
                        ranks.size(), ranks, labels));
    }
}
