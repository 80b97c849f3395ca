package io.rdmamon.demo;

import io.rdmamon.jobs.SocketPorts;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.PodIdentity;
import io.rdmamon.sim.ClusterTraffic;
import io.rdmamon.sim.Fault;
import io.rdmamon.sim.HostTraffic;
import io.rdmamon.sim.NicDriver;
import io.rdmamon.sim.PortTraffic;
import io.rdmamon.sim.SysfsTreeWriter;
import io.rdmamon.sim.SysfsTreeWriter.DeviceKind;
import io.rdmamon.sim.TrafficProfile;
import io.rdmamon.sim.TrainingJobSpec;
import io.rdmamon.sim.TrainingTrafficModel;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The demo's GPU cluster: one sysfs tree per node, written as the kernel would, with training traffic from the same
 * model the scenarios use. Four RoCE nodes (two 200 Gb/s mlx5 rails) run {@value #LLM_JOB}; two eRDMA nodes (one per
 * driver naming) run {@value #BERT_JOB}; two more eRDMA nodes run {@value #FALLBACK_JOB}, whose NCCL fell back to
 * TCP from its start (its image lacks the RDMA libraries): its eRDMA devices idle while eth0 carries its gradients.
 * At announced offsets a link on gpu-node-2 degrades and the BERT job hangs.
 * Two more jobs run on Alibaba Cloud ACS serverless GPU pods (docs/acs.md), two pods each, each pod with a collector
 * inside it (so each pod is a "node" named {@code <namespace>.<pod>}), all on one virtual node: {@value #ACS_SOCKET_JOB}
 * on P16EN, whose intended collective transport is NCCL's socket transport on eth0 (no RDMA device in its pods), and
 * {@value #ACS_RDMA_JOB} on GU8TF over two mlx5 NICs per pod.
 * The collectors only see files: nothing here talks to them.
 */
public final class SimulatedCluster {
    public static final String NAMESPACE = "ml-research";
    public static final String LLM_JOB = "llama-pretrain";
    public static final String BERT_JOB = "bert-finetune";
    public static final String FALLBACK_JOB = "resnet-train";
    public static final String HOST_IFACE = "eth0";
    private static final long GBPS = 125_000_000L;
    /**
     * The eRDMA nodes' instance type, on their ranks as jobs watch would put it, and the bandwidth the demo expects
     * of one of their NICs (an assumed figure, not a measurement); the RoCE nodes have no instance type and are
     * looked up by device type ({@code mlx5}).
     */
    public static final String ERDMA_INSTANCE_TYPE = "ecs.ebmgn7ex";
    public static final String EXPECTED_NIC_BY_INSTANCE_TYPE = ERDMA_INSTANCE_TYPE + "=10e9";
    public static final String EXPECTED_NIC_BY_DEVICE_TYPE = "mlx5=20e9";
    public static final String ACS_NAMESPACE = "acs";
    public static final String ACS_SOCKET_JOB = "sft-p16en";
    public static final String ACS_RDMA_JOB = "llm-gu8tf";
    /** The virtual-kubelet node the ACS pods run on: many pods share it, so it names none of them. */
    public static final String ACS_VIRTUAL_NODE = "virtual-kubelet-cn-wulanchabu-c";
    /** The ACS pods' second interface (the RDMA NIC's netdev), sampled beside eth0 and idle here. */
    private static final String HPN_IFACE = "hpn0";

    /**
     * One simulated node: its name, sysfs root and RDMA devices. {@code pod}: for an ACS pod, the pod whose collector
     * runs inside it ({@link #ACS_NAMESPACE}); null for a node of its own.
     */
    public record Node(String name, Path sysfsRoot, List<String> devices, boolean erdma, SysfsTreeWriter tree,
                       String pod) {
    }

    private final List<Node> nodes = new ArrayList<>();
    private final List<JobRecord> jobs = new ArrayList<>();
    private final ClusterTraffic traffic = new ClusterTraffic();
    private final Map<String, Boolean> linkUp = new TreeMap<>();
    private long lastTickMs;

    /**
     * @param root          folder for the node trees (tmpfs is best: every counter write is a rename)
     * @param startMs       wall-clock start; jobs are Running from here and train from {@code startMs + 20 s}
     * @param degradeAfterMs offset at which gpu-node-2/mlx5_0 starts retransmitting and dropping (null: never)
     * @param hangAfterMs    offset at which the BERT job's collective hangs (null: never)
     */
    public SimulatedCluster(Path root, long startMs, Long degradeAfterMs, Long hangAfterMs) {
        List<String> roce = List.of("gpu-node-1", "gpu-node-2", "gpu-node-3", "gpu-node-4");
        for (String name : roce) {
            addNode(root, name, List.of("mlx5_0", "mlx5_1"), DeviceKind.MLX5);
        }
        addNode(root, "gpu-node-5", List.of("erdma_0"), DeviceKind.ERDMA_OUT_OF_TREE);
        addNode(root, "gpu-node-6", List.of("erdma_0"), DeviceKind.ERDMA_UPSTREAM);
        List<String> tcp = List.of("gpu-node-7", "gpu-node-8");
        for (String name : tcp) {
            addNode(root, name, List.of("erdma_0"), DeviceKind.ERDMA_UPSTREAM);
        }

        long trainFrom = startMs + 20_000;
        TrainingJobSpec llm = new TrainingJobSpec(4, 2, trainFrom, null,
                TrafficProfile.of(800, 500, 200 * GBPS, 0.6), null, null, List.of(), List.of());
        if (degradeAfterMs != null) {
            llm = llm.withFault(new Fault.DegradedLink(1, 0, 0.6, 0.8, 400, 40, startMs + degradeAfterMs, null));
        }
        TrainingJobSpec bert = TrainingJobSpec.steady(2, 1, trainFrom, TrafficProfile.of(600, 350, 100 * GBPS, 0.5));
        if (hangAfterMs != null) {
            bert = bert.withFault(new Fault.Hang(startMs + hangAfterMs, null));
        }
        addJob(LLM_JOB, roce, List.of("mlx5_0", "mlx5_1"), startMs, llm);
        addJob(BERT_JOB, List.of("gpu-node-5", "gpu-node-6"), List.of("erdma_0"), startMs, bert);
        TrainingJobSpec overTcp = TrainingJobSpec.steady(2, 1, trainFrom, TrafficProfile.of(600, 350, 100 * GBPS, 0.5))
                .withFault(new Fault.TcpFallback(0.3, startMs, null));
        addJob(FALLBACK_JOB, tcp, List.of("erdma_0"), startMs, overTcp);
        addAcsJobs(root, startMs, trainFrom);
        lastTickMs = startMs;
    }

    /**
     * The ACS jobs: P16EN over sockets (its NCCL uses eth0 from the start, at the socket transport's speed, which the
     * simulator's fallback models), GU8TF over RDMA. Their records are what jobs watch publishes for such pods.
     */
    private void addAcsJobs(Path root, long startMs, long trainFrom) {
        List<JobRecord.Rank> sockets = new ArrayList<>();
        List<JobRecord.Rank> rdma = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            sockets.add(acsRank(root, ACS_SOCKET_JOB, r, List.of(), "P16EN", List.of(HOST_IFACE)));
            rdma.add(acsRank(root, ACS_RDMA_JOB, r, List.of("mlx5_0", "mlx5_1"), "GU8TF", null));
        }
        TrainingJobSpec overSockets = TrainingJobSpec.steady(2, 1, trainFrom,
                TrafficProfile.of(600, 350, 25 * GBPS, 0.5)).withFault(new Fault.TcpFallback(1.0, startMs, null));
        addJob(ACS_NAMESPACE, ACS_SOCKET_JOB, sockets, Map.of("alibabacloud.com/gpu-model-series", "P16EN",
                SocketPorts.TRANSPORT_LABEL, SocketPorts.SOURCE), startMs, overSockets);
        addJob(ACS_NAMESPACE, ACS_RDMA_JOB, rdma, Map.of("alibabacloud.com/gpu-model-series", "GU8TF"), startMs,
                TrainingJobSpec.steady(2, 2, trainFrom, TrafficProfile.of(800, 500, 200 * GBPS, 0.6)));
    }

    /**
     * Rank {@code r} of an ACS job: its pod (with its own sysfs, RDMA devices, eth0 and hpn0) and the rank as jobs
     * watch names it. {@code used}: the rank's devices when not the pod's RDMA devices (the socket interface).
     */
    private JobRecord.Rank acsRank(Path root, String job, int r, List<String> devices, String model,
                                   List<String> used) {
        String pod = r == 0 ? job + "-master-0" : job + "-worker-" + (r - 1);
        String name = PodIdentity.node(ACS_NAMESPACE, pod);
        Node node = addNode(root, name, devices, DeviceKind.MLX5, pod);
        node.tree().addInterface(HPN_IFACE);
        return new JobRecord.Rank(r, pod, name, used == null ? devices : used, model, ACS_VIRTUAL_NODE);
    }

    private void addNode(Path root, String name, List<String> devices, DeviceKind kind) {
        addNode(root, name, devices, kind, null);
    }

    private Node addNode(Path root, String name, List<String> devices, DeviceKind kind, String pod) {
        Path sysfs = root.resolve(name).resolve("sys");
        SysfsTreeWriter tree = new SysfsTreeWriter(sysfs);
        for (String device : devices) {
            tree.addDevice(device, kind, 1, SysfsTreeWriter.ETHERNET);
            // eRDMA's rate file follows the netdev speed: 100 Gb/s on the instance types the seeds name
            tree.setRate(device, 1, kind == DeviceKind.MLX5 ? "200 Gb/sec (4X HDR)" : "100 Gb/sec (4X EDR)");
        }
        tree.addInterface(HOST_IFACE);
        Node node = new Node(name, sysfs, devices, kind != DeviceKind.MLX5, tree, pod);
        nodes.add(node);
        return node;
    }

    private void addJob(String name, List<String> onNodes, List<String> devices, long startMs, TrainingJobSpec spec) {
        List<JobRecord.Rank> ranks = new ArrayList<>();
        for (int r = 0; r < onNodes.size(); r++) {
            String pod = r == 0 ? name + "-master-0" : name + "-worker-" + (r - 1);
            String node = onNodes.get(r);
            boolean erdma = nodes.stream().anyMatch(n -> n.name().equals(node) && n.erdma());
            ranks.add(new JobRecord.Rank(r, pod, node, devices, erdma ? ERDMA_INSTANCE_TYPE : null));
        }
        addJob(NAMESPACE, name, ranks, Map.of("release", name), startMs, spec);
    }

    private void addJob(String namespace, String name, List<JobRecord.Rank> ranks, Map<String, String> labels,
                        long startMs, TrainingJobSpec spec) {
        String uid = UUID.nameUUIDFromBytes(("demo/" + namespace + "/" + name).getBytes()).toString();
        Map<String, String> all = new TreeMap<>(labels);
        all.put("training.kubeflow.org/job-name", name);
        JobRecord running = new JobRecord(JobRecord.VERSION, uid, name, namespace, JobRecord.RUNNING, startMs, startMs,
                ranks.size(), ranks, all);
        jobs.add(running);
        traffic.add(running, new TrainingTrafficModel(spec, uid.hashCode()));
    }

    public List<Node> nodes() {
        return List.copyOf(nodes);
    }

    /** The jobs' Running records, to publish on the jobs topic. */
    public List<JobRecord> jobs() {
        return List.copyOf(jobs);
    }

    /** Advances every counter by what the jobs moved since the previous tick. */
    public synchronized void tick(long nowMs) {
        if (nowMs <= lastTickMs) {
            return;
        }
        for (Node node : nodes) {
            for (String device : node.devices()) {
                apply(node, device, traffic.port(node.name(), device, lastTickMs, nowMs));
            }
            HostTraffic host = traffic.host(node.name(), lastTickMs, nowMs);
            // a little background TCP (logs, metrics) besides what the jobs move
            long background = (nowMs - lastTickMs) * 50_000;
            node.tree().addInterfaceTraffic(HOST_IFACE, host.txBytes() + background, host.rxBytes() + background,
                    (host.txBytes() + background) / 9000 + 1, (host.rxBytes() + background) / 9000 + 1);
        }
        lastTickMs = nowMs;
    }

    private void apply(Node node, String device, PortTraffic t) {
        SysfsTreeWriter tree = node.tree();
        tree.addTraffic(device, 1, t.txBytes(), t.rxBytes(), t.txPackets(), t.rxPackets());
        NicDriver.ofDevice(device).counterIncrements(t.errors()).forEach((counter, n) -> {
            if (!node.erdma()) {
                tree.addCounter(device, 1, counter, n);
            }
        });
        String key = node.name() + "/" + device;
        Boolean wasUp = linkUp.put(key, t.linkUp());
        if (wasUp == null || wasUp != t.linkUp()) {
            tree.setState(device, 1, t.linkUp() ? 4 : 1, t.linkUp() ? "ACTIVE" : "DOWN");
            tree.setPhysState(device, 1, t.linkUp() ? 5 : 3, t.linkUp() ? "LinkUp" : "Disabled");
        }
    }
}
