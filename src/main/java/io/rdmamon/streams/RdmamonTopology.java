package io.rdmamon.streams;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.rdmamon.clock.ClockCorrection;
import io.rdmamon.detect.CollectorSilenceDetector;
import io.rdmamon.detect.Detector;
import io.rdmamon.detect.DetectorConfig;
import io.rdmamon.detect.DetectorProcessor;
import io.rdmamon.detect.GpuIdleDetector;
import io.rdmamon.detect.GpuLostDetector;
import io.rdmamon.detect.LinkDegradedDetector;
import io.rdmamon.detect.LinkDownDetector;
import io.rdmamon.detect.LinkIdleDetector;
import io.rdmamon.detect.PortJudge;
import io.rdmamon.detect.PortVerdict;
import io.rdmamon.detect.StallDetector;
import io.rdmamon.detect.StragglerDetector;
import io.rdmamon.detect.TcpFallbackDetector;
import io.rdmamon.jobs.AssignedInput;
import io.rdmamon.jobs.JobAssignments;
import io.rdmamon.jobs.JobBandwidths;
import io.rdmamon.jobs.NicExpectations;
import io.rdmamon.jobs.NodeAssigner;
import io.rdmamon.jobs.JobEvent;
import io.rdmamon.jobs.JobEventBatch;
import io.rdmamon.jobs.JobEvents;
import io.rdmamon.jobs.JobWindow;
import io.rdmamon.jobs.JobWindowProcessor;
import io.rdmamon.jobs.NodeTickBatcher;
import io.rdmamon.model.Alert;
import io.rdmamon.model.ContractLimits;
import io.rdmamon.model.GpuSample;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.JobBandwidth;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.JsonSerde;
import io.rdmamon.model.LinkHealth;
import io.rdmamon.model.PortSample;
import io.rdmamon.streams.StreamsAppConfig.TopicNames;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.errors.LogAndContinueProcessingExceptionHandler;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;

import java.util.List;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * The rdmamon stream application: one topology used by {@code rdmamon streams}, the tests and {@code rdmamon replay}.
 *
 * <pre>
 * rdma.port-samples (key node/device/port, PortSample)  ─┐ decode (poison → rdma.dead-letter)
 * rdma.host-samples (key node/iface, HostIfaceSample)   ─┤
 * rdma.gpu-samples (key node/gpu, GpuSample)            ─┤
 * rdma.jobs (compacted, key uid, JobRecord)             ─┴─► holds per node/device and node/*, repartitioned by node
 *   samples, in their node's partition (moved there first when a producer put them elsewhere)
 *     ─► in the other nodes' time where the node's clock is off (ClockCorrection)
 *     ─► the assignment valid at the sample's ts (NodeAssigner)
 *     ├─► per port (PortJudge): rdma.link-health (key node/device/port, LinkHealth, per interval or on change)
 *     │                         LINK_DOWN, LINK_DEGRADED, LINK_IDLE                                ─┐
 *     ├─► per GPU: GPU_LOST                                                                        ─┤
 *     ├─► per node pass: job event batches ─repartition uid─► STALLED_SYNC, TCP_FALLBACK, GPU_IDLE  ─┤
 *     │     (GPU samples: to the jobs holding the GPU, for STALLED_SYNC, GPU_IDLE and the windows)     │
 *     │                                                    └─► windows (streams.window.size.ms,     │
 *     │                                                        closed when all reporting ports      │
 *     │                                                        passed their end)                    │
 *     │                                                          ├─► rdma.job-bandwidth (key uid, JobBandwidth)
 *     │                                                          └─► STRAGGLER (state per job)     ─┤
 *     └─► COLLECTOR_SILENT (per node, wall-clock)                                                  ─┴─► rdma.alerts
 *           ▲ looks up                                                                                (key id, Alert)
 * rdma.nodes (compacted, key node, NodeRecord; a global table: nodes deleted from the cluster are not silent)
 * </pre>
 *
 * Event time is each record's own time ({@code ts}, {@code updatedAt}) throughout. Every threshold is a key of
 * {@link DetectorConfig}; topic names are keys of {@link StreamsAppConfig}. Topic creation:
 * <pre>
 * kafka-topics.sh --create --topic rdma.jobs --config cleanup.policy=compact --partitions 6   (likewise rdma.nodes)
 * kafka-topics.sh --create --topic rdma.port-samples --partitions 6   (likewise rdma.host-samples, rdma.job-bandwidth,
 *                                                     rdma.link-health, rdma.alerts, rdma.dead-letter)
 * </pre>
 */
public final class RdmamonTopology {
    private RdmamonTopology() {
    }

    /** The topology, with its metrics in Micrometer's global registry. */
    public static Topology build(StreamsAppConfig cfg) {
        return build(cfg, Metrics.globalRegistry);
    }

    public static Topology build(StreamsAppConfig cfg, MeterRegistry registry) {
        return build(cfg, registry, 0);
    }

    /**
     * @param samplePartitions partitions of the sample topics (the assignment changes are re-partitioned to match);
     *                         0 when unknown, as in tests and replays on one partition
     */
    public static Topology build(StreamsAppConfig cfg, MeterRegistry registry, int samplePartitions) {
        return build(cfg, builder -> build(builder, cfg, registry, samplePartitions));
    }

    /**
     * The app's sources and sample decoding with nothing after them: what {@code rdmamon bench streams --floor} runs
     * to measure the least any Kafka Streams app with these settings pays to read the samples (docs/performance.md).
     */
    public static Topology buildDecodeOnly(StreamsAppConfig cfg, MeterRegistry registry) {
        return build(cfg, builder -> {
            portSamples(builder, cfg, registry, 0);
            hostSamples(builder, cfg, registry, 0);
            gpuSamples(builder, cfg, registry, 0);
        });
    }

    /** A topology of {@code parts} with the app's Kafka Streams settings. */
    private static Topology build(StreamsAppConfig cfg, Consumer<StreamsBuilder> parts) {
        Properties props = streamsConfig(cfg);
        StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(props)));
        parts.accept(builder);
        return builder.build(props);
    }

    private static KStream<String, PortSample> portSamples(StreamsBuilder builder, StreamsAppConfig cfg,
                                                           MeterRegistry registry, int samplePartitions) {
        return Inputs.decode(builder, cfg.topics().portSamples(),
                sampleInput(Input.PORT_SAMPLES.withLimits(cfg.contractLimits()), samplePartitions),
                cfg.topics().deadLetter(), registry);
    }

    private static KStream<String, HostIfaceSample> hostSamples(StreamsBuilder builder, StreamsAppConfig cfg,
                                                                MeterRegistry registry, int samplePartitions) {
        return Inputs.decode(builder, cfg.topics().hostSamples(),
                sampleInput(Input.HOST_SAMPLES.withLimits(cfg.contractLimits()), samplePartitions),
                cfg.topics().deadLetter(), registry);
    }

    private static KStream<String, GpuSample> gpuSamples(StreamsBuilder builder, StreamsAppConfig cfg,
                                                         MeterRegistry registry, int samplePartitions) {
        return Inputs.decode(builder, cfg.topics().gpuSamples(),
                sampleInput(Input.GPU_SAMPLES.withLimits(cfg.contractLimits()), samplePartitions),
                cfg.topics().deadLetter(), registry);
    }

    /** On one partition a sample's key is not needed for order: it is then taken from the payload. */
    private static <T> Input<T> sampleInput(Input<T> input, int samplePartitions) {
        return samplePartitions > 1 ? input.requiringKey(samplePartitions) : input;
    }

    public static void build(StreamsBuilder builder, StreamsAppConfig cfg, MeterRegistry registry,
                             int samplePartitions) {
        TopicNames topics = cfg.topics();
        DetectorConfig thresholds = cfg.detectors();
        ContractLimits limits = cfg.contractLimits();
        KStream<String, PortSample> samples = portSamples(builder, cfg, registry, samplePartitions);
        KStream<String, HostIfaceSample> hosts = hostSamples(builder, cfg, registry, samplePartitions);
        KStream<String, GpuSample> gpus = gpuSamples(builder, cfg, registry, samplePartitions);
        KStream<String, JobRecord> jobs = Inputs.decode(builder, topics.jobs(), Input.JOBS.withLimits(limits),
                topics.deadLetter(), registry);

        // everything up to the job side runs in the node's own partition: no per-sample repartition
        KStream<String, AssignedInput> assigned = JobAssignments.assign(samples, hosts, gpus, jobs, samplePartitions,
                cfg.historyRetention(), cfg.lateJobGrace(), registry, cfg.storeType(),
                ClockCorrection.supplier(cfg.clockSkewMax().toMillis(), limits.maxFutureMs(), registry));
        KStream<String, PortVerdict> verdicts = assigned.process(PortJudge.supplier(
                cfg.linkHealthInterval().toMillis(), List.of(new LinkDownDetector(thresholds),
                        new LinkDegradedDetector(thresholds), new LinkIdleDetector(thresholds)), registry,
                cfg.storeType()), Named.as("port-judge"));
        verdicts.filter((key, v) -> v.linkHealth() != null, Named.as("link-health"))
                .mapValues(PortVerdict::linkHealth, Named.as("link-health-values"))
                .to(topics.linkHealth(), Produced.with(Serdes.String(), JsonSerde.of(LinkHealth.class))
                        .withName("link-health-out"));
        KStream<String, Alert> portAlerts = verdicts.filter((key, v) -> v.alert() != null, Named.as("port-alerts"))
                .mapValues(PortVerdict::alert, Named.as("port-alert-values"));

        KStream<String, JobEventBatch> batches = assigned.process(
                NodeTickBatcher.supplier(cfg.punctuateInterval(), cfg.passSpreadMs(), cfg.storeType()),
                Named.as(NodeTickBatcher.PROCESSOR));
        KStream<String, JobEvent> jobEvents = JobEvents.byJob(batches, jobs);
        KStream<String, JobWindow> windows = jobEvents.process(
                JobWindowProcessor.supplier(cfg.windowSize(), cfg.windowGrace(), cfg.windowPortTimeout(),
                        cfg.punctuateInterval(), registry, cfg.storeType()), Named.as("job-windows"));
        NicExpectations nicExpectations = cfg.nicExpectations();
        windows.mapValues(w -> JobBandwidths.of(w, nicExpectations), Named.as("job-bandwidth"))
                .to(topics.jobBandwidth(), Produced.with(Serdes.String(), JsonSerde.of(JobBandwidth.class))
                        .withName("job-bandwidth-out"));

        KStream<String, Alert> alerts = portAlerts
                .merge(detect(jobEvents, new StallDetector(thresholds), cfg, registry), Named.as("alerts-1"))
                .merge(detect(windows, new StragglerDetector(thresholds, cfg.windowSize().toMillis()),
                        cfg, registry), Named.as("alerts-2"))
                .merge(collectorSilence(builder, assigned, cfg, registry), Named.as("alerts-3"))
                .merge(detect(jobEvents, new TcpFallbackDetector(thresholds), cfg, registry), Named.as("alerts-4"))
                .merge(detect(jobEvents, new GpuIdleDetector(thresholds), cfg, registry), Named.as("alerts-5"))
                .merge(detect(assigned.filter((key, in) -> in.gpu() != null, Named.as("gpu-lost-inputs")),
                        new GpuLostDetector(thresholds), cfg, registry), Named.as("alerts-6"));
        alerts.to(topics.alerts(), Produced.with(Serdes.String(), JsonSerde.of(Alert.class)).withName("alerts-out"));
    }

    /** The main consumer's fetch batching (docs/streams.md); {@code kafka.main.consumer.fetch.*} overrides it. */
    static final int FETCH_MIN_BYTES = 256 * 1024;
    static final int FETCH_MAX_WAIT_MS = 100;
    /** The producer's batch per partition (docs/streams.md); {@code kafka.producer.batch.size} overrides it. */
    static final int PRODUCER_BATCH_SIZE = 64 * 1024;
    /** The producer's compression (docs/streams.md); {@code kafka.producer.compression.type} overrides it. */
    static final String PRODUCER_COMPRESSION = "lz4";

    /** Kafka Streams settings: exactly-once v2, explicit names for every internal topic, then {@code kafka.*}. */
    public static Properties streamsConfig(StreamsAppConfig cfg) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, cfg.applicationId());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, cfg.bootstrapServers());
        props.put(StreamsConfig.STATE_DIR_CONFIG, cfg.stateDir());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, cfg.getInt(StreamsAppConfig.THREADS_CONFIG));
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, cfg.getInt(StreamsAppConfig.REPLICATION_FACTOR_CONFIG));
        // fail-over: a dead instance's tasks move once the group gives up on it (the session timeout, 45 s by
        // Kafka's default, which left jobs without windows for 50 s), to an instance that kept a warm copy
        props.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, cfg.getInt(StreamsAppConfig.STANDBY_REPLICAS_CONFIG));
        long session = cfg.sessionTimeout().toMillis();
        props.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), (int) session);
        props.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG),
                (int) Math.max(100, session / 4));
        props.put(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, true);
        // exactly-once's default of 100 ms makes every commit a transaction and a changelog flush: a deliberate,
        // longer interval batches them; outputs become visible at commits, so it bounds the alert latency too
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, cfg.commitInterval().toMillis());
        // a task does not wait for an empty input partition: waiting costs a String.format per record in Kafka
        // Streams 4.3 (PartitionGroup.readyToProcess) whenever one partition is empty, which the sample tasks' hold
        // changes nearly always are; each input is in order on its own, which is what the processors rely on
        props.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, StreamsConfig.MAX_TASK_IDLE_MS_DISABLED);
        // live, the collectors' batches trickle in all second long, and a fetch that returns at the first byte makes
        // the stream thread go round its loop (poll, record queues, punctuation and commit checks) for a handful of
        // records each time; waiting up to 100 ms for 256 KB gives it about ten polls a second instead
        props.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.FETCH_MIN_BYTES_CONFIG), FETCH_MIN_BYTES);
        props.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), FETCH_MAX_WAIT_MS);
        // exactly-once: what the app writes is visible at the commit, which flushes the producer anyway, so its batches
        // may wait for it; Kafka Streams' 100 ms sent a batch per partition ten times a commit, each send a wake-up of
        // the producer's thread and a request to the broker
        props.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), cfg.commitInterval().toMillis());
        // and a batch may hold what a busy partition (link health, job-event batches) gets in a commit: at Kafka's 16 KB
        // those filled and went several times a commit; the pool (buffer.memory) still has room for 500 such batches,
        // and when it runs short the producer sends early rather than block
        props.put(StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG), PRODUCER_BATCH_SIZE);
        // uncompressed, what the app writes (changelogs of JSON and binary state, link health, job-event batches) was
        // nearly three times the bytes the collectors' gzip batches of samples put on the brokers, all of it stored
        // and replicated; lz4 takes two thirds off at no measurable CPU (the stream thread compresses as it
        // appends), zstd took four fifths off for a tenth more CPU
        props.put(StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG), PRODUCER_COMPRESSION);
        // a bug tripped by one odd record skips that record (counted in dropped-records) instead of stopping the app
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG,
                LogAndContinueProcessingExceptionHandler.class);
        // the topology has no global store; saying so opts into Kafka 5's default and ends a warning at every start;
        // the main consumer's partition assignor reads a StreamsConfig of its own from the consumer's settings, which
        // warns again unless it gets the key too
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
        props.put(StreamsConfig.mainConsumerPrefix(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG),
                true);
        // no client metrics pushed to the brokers (KIP-714; Kafka's default is on): the app's metrics are on its
        // /metrics endpoint, and the telemetry reporter took part in registering each of the thousands of task and
        // client metrics at every start; kafka.enable.metrics.push=true brings it back
        props.put(StreamsConfig.ENABLE_METRICS_PUSH_CONFIG, false);
        props.putAll(cfg.kafkaOverrides());
        return props;
    }

    private static <V, S> KStream<String, Alert> detect(KStream<String, V> input, Detector<V, S> detector,
                                                        StreamsAppConfig cfg, MeterRegistry registry) {
        return input.process(DetectorProcessor.supplier(detector, registry, cfg.storeType()),
                Named.as(DetectorProcessor.storeName(detector.type()) + "-detector"));
    }

    /** Samples are partitioned by node at the source: each reaches its node's detector without a repartition. */
    /** The global store of the nodes topic (NodeDepartures says why a global table). */
    static final String NODES_STORE = "nodes";

    private static KStream<String, Alert> collectorSilence(StreamsBuilder builder,
                                                           KStream<String, AssignedInput> samples,
                                                           StreamsAppConfig cfg, MeterRegistry registry) {
        String nodes = cfg.topics().nodes();
        if (nodes != null) {
            // raw bytes, parsed where read: a record outside the contract is logged and counted there; in memory,
            // as it is one small record per node and restored from the topic itself at start
            builder.globalTable(nodes, Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("nodes-in"),
                    Materialized.<String, byte[]>as(Stores.inMemoryKeyValueStore(NODES_STORE))
                            .withKeySerde(Serdes.String()).withValueSerde(Serdes.ByteArray()));
        }
        return samples.process(CollectorSilenceDetector.supplier(cfg.detectors(), cfg.punctuateInterval(), registry,
                        cfg.storeType(), nodes == null ? null : NODES_STORE), Named.as("collector-silent-detector"),
                NodeAssigner.STORE);
    }
}
