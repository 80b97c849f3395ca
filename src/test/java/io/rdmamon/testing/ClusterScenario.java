package io.rdmamon.testing;

import io.rdmamon.model.Alert;
import io.rdmamon.model.CounterClass;
import io.rdmamon.model.GpuSample;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.JobBandwidth;
import io.rdmamon.model.JobBandwidth.RankBandwidth;
import io.rdmamon.model.LinkHealth;
import io.rdmamon.model.PortSample;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Two hours of a small GPU cluster, as the collector and the stream app would publish it, ending at a given instant:
 * every record type, with the incidents the dashboards and alert rules are built to show. Utilisations are constant
 * within each minute, so the 1-minute rollups equal the values of {@link #utilisation}: tests compute expected
 * percentiles from that truth.
 *
 * <ul>
 *   <li>{@code llama-70b} (llm): ranks on gpu-01/mlx5_0 and gpu-02/mlx5_0 at a constant 60% of nominal;</li>
 *   <li>{@code bert-large} (research): 4 ranks on gpu-03 and gpu-04, 20-30%; rank 3 straggles (half rate) 90-70 min
 *   before the end; the whole job stalls 50-40 min before the end; gpu-03/mlx5_0 degrades (retransmits, drops,
 *   CNPs) 65-50 min before the end;</li>
 *   <li>{@code resnet-50} (vision): rank 0 on gpu-01/mlx5_1 (10-25%, 85% 80-70 min before the end), rank 1 on
 *   gpu-02/mlx5_1, allocated but idle;</li>
 *   <li>gpu-03/mlx5_2 (unallocated) goes DOWN 45 min before the end and stays down;</li>
 *   <li>gpu-05's collector falls silent 30 min before the end;</li>
 *   <li>every node has {@link #GPUS_PER_NODE} GPUs: bert-large's at 95% busy, all at 100% with no memory traffic
 *   (waiting in a collective) while the job stalls; the other nodes' at 50%.</li>
 * </ul>
 */
public final class ClusterScenario {
    public static final long RATE = 25_000_000_000L;
    public static final long STEP_MS = 30_000;
    public static final long SPAN_MS = 2 * 3_600_000L;
    public static final String SILENT_NODE = "gpu-05";
    /** What the operator expects of one mlx5 NIC (streams.nic.expected.device.types); resnet-50's is not known. */
    public static final double EXPECTED_NIC = 20e9;
    public static final int GPUS_PER_NODE = 2;

    public record Link(String node, String device, int port) {
        @Override
        public String toString() {
            return node + "/" + device + "/" + port;
        }
    }

    /** A job's rank on one link. */
    public record Rank(String uid, String job, String namespace, int rank) {
    }

    public static final Link LLAMA_0 = new Link("gpu-01", "mlx5_0", 1);
    public static final Link LLAMA_1 = new Link("gpu-02", "mlx5_0", 1);
    public static final Link RESNET_0 = new Link("gpu-01", "mlx5_1", 1);
    public static final Link IDLE = new Link("gpu-02", "mlx5_1", 1);
    public static final Link BERT_0 = new Link("gpu-03", "mlx5_0", 1);
    public static final Link BERT_1 = new Link("gpu-03", "mlx5_1", 1);
    public static final Link BERT_2 = new Link("gpu-04", "mlx5_0", 1);
    public static final Link BERT_3 = new Link("gpu-04", "mlx5_1", 1);
    public static final Link DOWN = new Link("gpu-03", "mlx5_2", 1);
    public static final Link SILENT_0 = new Link(SILENT_NODE, "mlx5_0", 1);
    public static final Link SILENT_1 = new Link(SILENT_NODE, "mlx5_1", 1);
    public static final List<Link> LINKS = List.of(LLAMA_0, LLAMA_1, RESNET_0, IDLE, BERT_0, BERT_1, BERT_2, BERT_3,
            DOWN, SILENT_0, SILENT_1);

    public static final Map<Link, Rank> ALLOCATION = Map.of(
            LLAMA_0, new Rank("uid-llama", "llama-70b", "llm", 0),
            LLAMA_1, new Rank("uid-llama", "llama-70b", "llm", 1),
            RESNET_0, new Rank("uid-resnet", "resnet-50", "vision", 0),
            IDLE, new Rank("uid-resnet", "resnet-50", "vision", 1),
            BERT_0, new Rank("uid-bert", "bert-large", "research", 0),
            BERT_1, new Rank("uid-bert", "bert-large", "research", 1),
            BERT_2, new Rank("uid-bert", "bert-large", "research", 2),
            BERT_3, new Rank("uid-bert", "bert-large", "research", 3));

    private final long start;
    private final long end;
    public final List<PortSample> portSamples = new ArrayList<>();
    public final List<LinkHealth> linkHealth = new ArrayList<>();
    public final List<HostIfaceSample> hostSamples = new ArrayList<>();
    public final List<GpuSample> gpuSamples = new ArrayList<>();
    public final List<JobBandwidth> jobBandwidth = new ArrayList<>();
    public final List<Alert> alerts = new ArrayList<>();

    /** The scenario's two hours end at {@code endMs}; the first sample is on a minute boundary. */
    public ClusterScenario(long endMs) {
        this.end = endMs;
        this.start = (endMs - SPAN_MS) / 60_000 * 60_000;
        for (long t = start; t <= end; t += STEP_MS) {
            sample(t);
        }
        alerts();
    }

    public long start() {
        return start;
    }

    public long end() {
        return end;
    }

    /** Whole minutes between {@code t}'s minute and the last minute: incident windows are defined in these. */
    private int minutesBeforeEnd(long t) {
        return minuteIndex(end) - minuteIndex(t);
    }

    private int minuteIndex(long t) {
        return (int) ((t - start) / 60_000);
    }

    /** Whether the collector of {@code link}'s node published at {@code t}. */
    public boolean reported(Link link, long t) {
        return !(link.node().equals(SILENT_NODE) && minutesBeforeEnd(t) < 30);
    }

    public boolean down(Link link, long t) {
        return link.equals(DOWN) && minutesBeforeEnd(t) < 45;
    }

    /** The truth: the link's utilisation (larger of tx and rx over nominal) during the minute holding {@code t}. */
    public double utilisation(Link link, long t) {
        int m = minuteIndex(t);
        int before = minutesBeforeEnd(t);
        if (link.equals(LLAMA_0) || link.equals(LLAMA_1)) {
            return 0.6;
        }
        if (link.equals(RESNET_0)) {
            return before >= 70 && before < 80 ? 0.85 : 0.1 + 0.05 * (m % 4);
        }
        if (link.equals(IDLE)) {
            return 0.0;
        }
        Rank rank = ALLOCATION.get(link);
        if (rank != null && rank.job().equals("bert-large")) {
            if (before >= 40 && before < 50) {
                return 0.0;
            }
            double base = 0.2 + 0.02 * (m % 6);
            return rank.rank() == 3 && before >= 70 && before < 90 ? base / 2 : base;
        }
        if (down(link, t)) {
            return 0.0;
        }
        return link.equals(DOWN) ? 0.02 : 0.05;
    }

    private void sample(long t) {
        Map<String, List<RankBandwidth>> ranksByJob = new TreeMap<>();
        for (Link link : LINKS) {
            if (!reported(link, t)) {
                continue;
            }
            double u = utilisation(link, t);
            double tx = u * RATE;
            double rx = tx * 0.98;
            Map<String, Long> errors = errors(link, t);
            Map<String, Long> classes = new HashMap<>();
            errors.forEach((counter, n) -> classes.merge(CounterClass.of(counter).orElseThrow().wireName(), n,
                    Long::sum));
            boolean down = down(link, t);
            String state = down ? "DOWN" : "ACTIVE";
            String phys = down ? "Disabled" : "LinkUp";
            long interval = t == start ? 0 : STEP_MS;
            portSamples.add(new PortSample(1, link.node(), link.device(), link.port(), t, interval, "sysfs", state,
                    phys, "Ethernet", RATE, t == start ? null : tx, t == start ? null : rx, tx / 4096, rx / 4096,
                    errors, classes));
            Rank rank = ALLOCATION.get(link);
            linkHealth.add(new LinkHealth(1, link.node(), link.device(), link.port(), t, state, phys, RATE, tx, rx,
                    tx / RATE, rx / RATE, classes, rank == null ? null : rank.uid(),
                    rank == null ? null : rank.namespace(), rank == null ? null : 1));
            if (rank != null) {
                ranksByJob.computeIfAbsent(rank.uid(), k -> new ArrayList<>())
                        .add(new RankBandwidth(rank.rank(), link.node(), tx, rx, null, false));
            }
        }
        ranksByJob.forEach((uid, ranks) -> jobBandwidth.add(jobWindow(uid, t, ranks)));
        for (String node : List.of("gpu-01", "gpu-02", "gpu-03", "gpu-04", SILENT_NODE)) {
            if (reported(new Link(node, "eth0", 1), t)) {
                double storage = storage(node, t);
                Map<String, Long> errors = node.equals("gpu-02") && minutesBeforeEnd(t) < 60
                        ? Map.of("rx_dropped", 2L) : Map.of();
                hostSamples.add(new HostIfaceSample(1, node, "eth0", t, STEP_MS, storage, 2.0e7, storage / 9000,
                        2.0e7 / 9000, errors));
                for (int gpu = 0; gpu < GPUS_PER_NODE; gpu++) {
                    gpuSamples.add(gpuSample(node, gpu, t));
                }
            }
        }
    }

    private GpuSample gpuSample(String node, int gpu, long t) {
        boolean bert = node.equals("gpu-03") || node.equals("gpu-04");
        int before = minutesBeforeEnd(t);
        boolean waiting = bert && before >= 40 && before < 50;
        double util = waiting ? 100.0 : bert ? 95.0 : 50.0;
        GpuSample s = new GpuSample(GpuSample.VERSION, node, gpu, "GPU-" + node + "-" + gpu, t, STEP_MS, util,
                waiting ? 0.0 : 30.0, waiting ? 120.0 : 400.0, 1980.0, gpu == 1 && !bert ? null : 1);
        // a rank waiting in a collective spins one core and moves no byte; training reads its data
        return gpu == 1 && !bert ? s : s.withProcessActivity(waiting ? 1.0 : 1.6, waiting ? 0.0 : 2.0e6,
                waiting ? 0.0 : 1.0e4, "R");
    }

    /** eth0's transmit rate: storage traffic, with a checkpoint every 30 minutes on bert-large's nodes. */
    private double storage(String node, long t) {
        boolean checkpoint = minuteIndex(t) % 30 == 29 && (node.equals("gpu-03") || node.equals("gpu-04"));
        return checkpoint ? 2.0e9 : 1.0e8;
    }

    private Map<String, Long> errors(Link link, long t) {
        int before = minutesBeforeEnd(t);
        Map<String, Long> errors = new LinkedHashMap<>();
        if (link.equals(LLAMA_0)) {
            errors.put("np_cnp_sent", 10L);
        }
        if (link.equals(BERT_0) && before >= 50 && before < 65) {
            errors.put("out_of_sequence", 40L);
            errors.put("out_of_buffer", 5L);
            errors.put("np_cnp_sent", 300L);
        }
        if (down(link, t) && !down(link, t - STEP_MS)) {
            errors.put("link_downed", 1L);
            errors.put("symbol_error", 3L);
        }
        return errors;
    }

    private JobBandwidth jobWindow(String uid, long t, List<RankBandwidth> measured) {
        Rank any = ALLOCATION.values().stream().filter(r -> r.uid().equals(uid)).findFirst().orElseThrow();
        double tx = measured.stream().mapToDouble(RankBandwidth::txBytesPerSec).sum();
        double rx = measured.stream().mapToDouble(RankBandwidth::rxBytesPerSec).sum();
        List<RankBandwidth> ranks = measured.stream()
                .map(r -> new RankBandwidth(r.rank(), r.node(), r.txBytesPerSec(), r.rxBytesPerSec(),
                        tx + rx == 0 ? null : (r.txBytesPerSec() + r.rxBytesPerSec()) / (tx + rx), false))
                .sorted(Comparator.comparingInt(RankBandwidth::rank))
                .toList();
        double[] perRank = ranks.stream().mapToDouble(r -> r.txBytesPerSec() + r.rxBytesPerSec()).sorted().toArray();
        int expected = (int) ALLOCATION.values().stream().filter(r -> r.uid().equals(uid)).count();
        // as the stream app sums them: eth0 (tx + rx) of each node the job runs on
        double host = measured.stream().map(RankBandwidth::node).distinct().mapToDouble(n -> storage(n, t) + 2.0e7)
                .sum();
        // one rank per link here: the busier direction (tx) of each, averaged
        double nic = tx / measured.size();
        Double expectedNic = any.job().equals("resnet-50") ? null : EXPECTED_NIC;
        return new JobBandwidth(1, uid, any.job(), any.namespace(), t, t + STEP_MS, tx, rx, ranks.size(), expected,
                perRank[0], perRank[perRank.length / 2], perRank[perRank.length - 1], false, ranks, host,
                (tx + rx) / (tx + rx + host), nic, expectedNic);
    }

    private void alerts() {
        incident(Alert.STRAGGLER, "warning", ALLOCATION.get(BERT_3), BERT_3, 90, 88, 70, "rank 3 at half its peers' rate");
        incident(Alert.LINK_DEGRADED, "warning", null, BERT_0, 65, 63, 50, "retransmits and drops on gpu-03/mlx5_0");
        incident(Alert.STALLED_SYNC, "critical", ALLOCATION.get(BERT_0), null, 50, 49, 40,
                "all 4 ranks quiet for 60 s, 12x the job's longest normal gap");
        incident(Alert.LINK_IDLE, "info", ALLOCATION.get(IDLE), IDLE, 110, 100, -1, "allocated to resnet-50, no traffic");
        incident(Alert.TCP_FALLBACK, "warning", ALLOCATION.get(RESNET_0), null, 118, 116, 105,
                "resnet-50 trained over TCP until its pods were rescheduled onto nodes with RDMA");
        incident(Alert.LINK_DOWN, "critical", null, DOWN, 45, 44, -1, "gpu-03/mlx5_2 state DOWN");
        incident(Alert.COLLECTOR_SILENT, "critical", null, new Link(SILENT_NODE, null, 0), 30, 29, -1,
                "no samples from gpu-05 for 60 s");
        // the GPU of bert-large's rank 0 fell off the bus and was reset; then the job's GPUs sat empty a while
        incident(Alert.GPU_LOST, "critical", ALLOCATION.get(BERT_0), new Link("gpu-03", "GPU-gpu-03-0", 0), 51, 51,
                45, "GPU 0 (GPU-gpu-03-0) of node gpu-03: its readings have failed for 2 s (GPU is lost)");
        incident(Alert.GPU_IDLE, "warning", ALLOCATION.get(BERT_0), null, 44, 39, 38,
                "none of the GPUs it used has had a compute process for 5 min");
    }

    /** One incident: firing {@code detected} minutes before the end, resolved {@code ended} minutes before (or open). */
    private void incident(String type, String severity, Rank job, Link link, int started, int detected, int ended,
                          String summary) {
        long startsAt = end - started * 60_000L;
        long detectedAt = end - detected * 60_000L;
        Long endsAt = ended < 0 ? null : end - ended * 60_000L;
        String subject = job != null ? job.namespace() + "/" + job.job() : link.toString();
        String id = type + ":" + subject + ":" + startsAt;
        // as the stream app labels them: the job's uid, and the ranks on the port or the straggling ranks
        Map<String, String> labels = new LinkedHashMap<>();
        if (job != null) {
            labels.put("uid", job.uid());
            if (link != null) {
                labels.put("ranks", String.valueOf(job.rank()));
            }
        }
        String jobName = job == null ? null : job.job();
        String namespace = job == null ? null : job.namespace();
        String node = link == null ? null : link.node();
        String device = link == null ? null : link.device();
        Integer port = link == null || link.device() == null || link.port() < 1 ? null : link.port();
        alerts.add(new Alert(1, id, type, Alert.FIRING, severity, jobName, namespace, node, device, port, startsAt,
                detectedAt, null, summary, labels));
        if (endsAt != null) {
            alerts.add(new Alert(1, id, type, Alert.RESOLVED, severity, jobName, namespace, node, device, port,
                    startsAt, detectedAt, endsAt, summary, labels));
        }
    }
}
