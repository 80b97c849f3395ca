package io.rdmamon.bench;

import io.rdmamon.model.GpuSample;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.Json;
import io.rdmamon.model.PortSample;
import io.rdmamon.scenario.ClusterNode;
import io.rdmamon.scenario.ScenarioRecorder;
import io.rdmamon.scenario.SimulatedJob;
import io.rdmamon.sim.ClusterTraffic;
import io.rdmamon.sim.Fault;
import io.rdmamon.sim.TrafficProfile;
import io.rdmamon.sim.TrainingJobSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import io.rdmamon.model.NodePartitioner;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * The records of a healthy cluster of {@code nodes} nodes with {@code devices} 200 Gb/s NICs each, every node in a
 * training job of {@code nodesPerJob} nodes, as the collectors and the job watcher publish them: the jobs' records,
 * then one port sample per NIC and one host sample per node each second, each node on its own clock offset. Samples
 * are made as they are sent: {@link #sendUntil} sends everything stamped before a time, so a start in the past
 * gives a backlog at once and repeated calls then keep pace with the clock.
 */
final class SizingLoad implements AutoCloseable {
    private static final long LINK_BYTES_PER_SEC = 200 * 125_000_000L;
    private static final long INTERVAL_MS = ScenarioRecorder.INTERVAL_MS;

    private final List<ClusterNode> nodes;
    private final int gpusPerNode;
    private final ClusterTraffic traffic = new ClusterTraffic();
    private final SizingTopics topics;
    private final long startMs;
    private final KafkaProducer<String, byte[]> producer;
    private final SplittableRandom random = new SplittableRandom(1);
    private long second;
    private int nextNode;
    private long records;
    private final List<String> jobNames = new ArrayList<>();
    /** Each NIC's sample stamped when read, the pass's samples up to this many ms apart (0: one ts per pass). */
    private long nicStampSpreadMs;

    private SizingLoad(List<ClusterNode> nodes, List<SimulatedJob> jobs, long startMs, SizingTopics topics,
                       String bootstrapServers, int gpusPerNode) {
        this.nodes = nodes;
        this.gpusPerNode = gpusPerNode;
        this.startMs = startMs;
        this.second = startMs;
        this.topics = topics;
        jobs.forEach(j -> traffic.add(j.running(), j.model(1)));
        jobs.forEach(j -> jobNames.add(j.name()));
        // the collector's own producer settings are not the point here; this one only has to keep up. Not
        // idempotent: the in-process broker can reject a burst to a just-created topic with
        // OUT_OF_ORDER_SEQUENCE_NUMBER forever (KAFKA-15591 family)
        this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false, ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.PARTITIONER_CLASS_CONFIG, NodePartitioner.class.getName()),
                new StringSerializer(), new ByteArraySerializer());
    }

    /** The cluster, its jobs Running from {@code startMs} and training from 5 s later. */
    static SizingLoad create(int nodes, int devices, int nodesPerJob, long startMs, SizingTopics topics,
                             String bootstrapServers) {
        return create(nodes, 0, devices, nodesPerJob, startMs, null, topics, bootstrapServers);
    }

    /** {@link #create}, every job's collectives hanging from {@code hangAtMs} on (null: never). */
    static SizingLoad create(int nodes, int devices, int nodesPerJob, long startMs, Long hangAtMs, SizingTopics topics,
                             String bootstrapServers) {
        return create(nodes, 0, devices, nodesPerJob, startMs, hangAtMs, topics, bootstrapServers);
    }

    /** {@link #create}, with {@code idleNodes} more nodes that no job holds (their samples, no job's). */
    static SizingLoad create(int nodes, int idleNodes, int devices, int nodesPerJob, long startMs, Long hangAtMs,
                             SizingTopics topics, String bootstrapServers) {
        return create(nodes, idleNodes, devices, 0, nodesPerJob, startMs, hangAtMs, topics, bootstrapServers);
    }

    /** {@link #create}, every node also sending {@code gpusPerNode} GPU samples a second (a training job's GPUs). */
    static SizingLoad create(int nodes, int idleNodes, int devices, int gpusPerNode, int nodesPerJob, long startMs,
                             Long hangAtMs, SizingTopics topics, String bootstrapServers) {
        List<String> nics = IntStream.range(0, devices).mapToObj(d -> "mlx5_" + d).toList();
        List<ClusterNode> cluster = IntStream.range(0, nodes + idleNodes).mapToObj(n -> new ClusterNode(
                        nodeName(n), nics, LINK_BYTES_PER_SEC, (n * 137L) % INTERVAL_MS))
                .sorted(Comparator.comparingLong(ClusterNode::clockOffsetMs)).toList();
        List<SimulatedJob> jobs = new ArrayList<>();
        TrafficProfile profile = TrafficProfile.of(800, 500, LINK_BYTES_PER_SEC, 0.6);
        for (int first = 0; first < nodes; first += nodesPerJob) {
            List<String> jobNodes = IntStream.range(first, Math.min(nodes, first + nodesPerJob))
                    .mapToObj(n -> nodeName(n)).toList();
            String name = String.format("train-%04d", first / nodesPerJob);
            TrainingJobSpec spec = TrainingJobSpec.steady(jobNodes.size(), devices, startMs + 5_000, profile);
            if (hangAtMs != null) {
                spec = spec.withFault(new Fault.Hang(hangAtMs, null));
            }
            jobs.add(SimulatedJob.create("sizing", name, "ml", SimulatedJob.ranks(name, jobNodes, nics), startMs, null,
                    spec));
        }
        SizingLoad load = new SizingLoad(cluster, jobs, startMs, topics, bootstrapServers, gpusPerNode);
        for (SimulatedJob job : jobs) {
            for (JobRecord j : job.lifecycle()) {
                load.send(topics.jobs(), j.uid(), Math.min(j.updatedAt(), startMs), j);
            }
        }
        return load;
    }

    private static String nodeName(int n) {
        return String.format("gpu-node-%04d", n);
    }

    /**
     * Stamps each sample when its NIC (or host interface) is read, as a collector may: the samples of a pass spread
     * over up to {@code ms} after its first, in NIC order. 0 (the default): one {@code ts} per pass.
     */
    SizingLoad nicStampSpread(long ms) {
        this.nicStampSpreadMs = ms;
        return this;
    }

    /** The jobs' names, as in their records. */
    List<String> jobNames() {
        return List.copyOf(jobNames);
    }

    /** Port, host and GPU records per second of this cluster. */
    long recordsPerSecond() {
        return nodes.size() * (nodes.get(0).devices().size() + 1L + gpusPerNode);
    }

    /** Sends every sample stamped before {@code wallMs}; returns the records sent so far, job records included. */
    synchronized long sendUntil(long wallMs) {
        while (second + nodes.get(nextNode).clockOffsetMs() < wallMs) {
            ClusterNode node = nodes.get(nextNode);
            long ts = second + node.clockOffsetMs();
            ScenarioRecorder.NodeTick tick = ScenarioRecorder.tick(traffic, node, ts, second == startMs, random);
            long[] read = readAt(ts, tick.ports().size() + 1);
            for (int i = 0; i < tick.ports().size(); i++) {
                PortSample p = tick.ports().get(i);
                send(topics.portSamples(), p.key(), read[i], read[i] == ts ? p : p.withTs(read[i]));
            }
            long hostTs = read[read.length - 1];
            send(topics.hostSamples(), tick.host().key(), hostTs, hostTs == ts ? tick.host()
                    : tick.host().withTs(hostTs));
            for (int gpu = 0; gpu < gpusPerNode; gpu++) {
                // a training GPU as the issue 44 table reads it; the GPU source keeps its own pace, half a second on
                GpuSample g = new GpuSample(GpuSample.VERSION, node.name(), gpu, node.name() + "-GPU-" + gpu,
                        ts + INTERVAL_MS / 2, INTERVAL_MS, 99 + random.nextInt(2) * 1.0, random.nextInt(6) * 1.0,
                        150.0 + random.nextInt(66), 1_980.0, 1);
                send(topics.gpuSamples(), g.key(), g.ts(), g);
            }
            if (++nextNode == nodes.size()) {
                nextNode = 0;
                second += INTERVAL_MS;
            }
        }
        return records;
    }

    /** When each of a pass's {@code n} samples is read: all at {@code ts}, or spread after it in order. */
    private long[] readAt(long ts, int n) {
        long[] at = new long[n];
        for (int i = 0; i < n; i++) {
            at[i] = ts + (nicStampSpreadMs == 0 ? 0 : random.nextLong(nicStampSpreadMs + 1));
        }
        Arrays.sort(at);
        return at;
    }

    synchronized void flush() {
        producer.flush();
    }

    private void send(String topic, String key, long ts, Object value) {
        producer.send(new ProducerRecord<>(topic, null, ts, key, Json.toBytes(value)));
        records++;
    }

    @Override
    public synchronized void close() {
        producer.close();
    }
}
