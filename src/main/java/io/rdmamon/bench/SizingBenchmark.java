package io.rdmamon.bench;

import io.rdmamon.support.EmbeddedKafkaBroker;
import io.rdmamon.influx.InfluxSettings;
import io.rdmamon.influx.InfluxdProcess;
import io.rdmamon.model.Alert;
import io.rdmamon.model.Json;
import io.rdmamon.streams.StreamsAppConfig;
import io.rdmamon.support.FileTrees;
import io.rdmamon.support.KafkaOffsets;
import io.rdmamon.support.TopicReader;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.TopicPartition;
import org.influxdb.InfluxDB;
import org.influxdb.InfluxDBFactory;
import org.influxdb.dto.Query;
import org.influxdb.dto.QueryResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * {@code rdmamon bench sizing}: what the central roles need for a cluster of a given size. A healthy cluster's records
 * (all nodes training) go to a broker: a backlog at once, then live at 1 Hz. The stream app, and then the sink, run
 * in JVMs of their own with their default settings; the benchmark reads their CPU time, resident memory and live
 * heap from the outside and prints them, also per 1,000 nodes.
 */
@Command(name = "sizing", mixinStandardHelpOptions = true,
        description = "CPU, memory and throughput of the stream app and the sink for a simulated cluster "
                + "(docs/performance.md and docs/runbook.md, Sizing).")
public final class SizingBenchmark implements Callable<Integer> {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(SizingBenchmark.class);
    @Option(names = "--nodes", defaultValue = "1000", description = "GPU nodes (default ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--devices", defaultValue = "8", description = "RDMA NICs (one port each) per node (default ${DEFAULT-VALUE}).")
    int devices;

    @Option(names = "--nodes-per-job", defaultValue = "8", description = "Nodes per training job (default ${DEFAULT-VALUE}).")
    int nodesPerJob;

    @Option(names = "--backlog", defaultValue = "240", description = "Seconds of records sent before the stream app starts (default ${DEFAULT-VALUE}).")
    int backlogSeconds;

    @Option(names = "--live", defaultValue = "120", description = "Seconds of records then sent live at 1 Hz; 0: the "
            + "backlog only (default ${DEFAULT-VALUE}).")
    int liveSeconds;

    @Option(names = "--partitions", defaultValue = "" + StreamsAppConfig.DEFAULT_TOPICS_PARTITIONS,
            description = "Partitions of every topic (default ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--threads", defaultValue = "" + StreamsAppConfig.DEFAULT_THREADS,
            description = "Stream threads of the stream app (default ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--streams-jvm-options", paramLabel = "OPTIONS", description = "JVM options of the stream app "
            + "after server/jvm.options (space-separated), e.g. a flight recording: "
            + "'-XX:StartFlightRecording=filename=streams.jfr'.")
    String streamsJvmOptions = "";

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "A setting of the stream app (repeatable), e.g. "
            + "streams.commit.interval.ms=1000.")
    List<String> streamsSettings = new ArrayList<>();

    @Option(names = "--heap", defaultValue = "2g", description = "Max heap of each measured JVM (default ${DEFAULT-VALUE}).")
    String heap;

    @Option(names = "--sink", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Also measure the sink into a private influxd (default ${DEFAULT-VALUE}; needs influxd).")
    boolean sink;

    @Option(names = "--bootstrap-servers", description = "An existing broker; default: an in-process one.")
    String bootstrapServers;

    @Option(names = "--timeout", defaultValue = "1800", description = "Seconds to wait for a role to catch up (default ${DEFAULT-VALUE}).")
    int timeoutSeconds;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Path work = Files.createTempDirectory("rdmamon-sizing");
        String run = UUID.randomUUID().toString().substring(0, 8);
        SizingTopics topics = SizingTopics.forRun(run);
        try (EmbeddedKafkaBroker broker = bootstrapServers == null
                ? EmbeddedKafkaBroker.start(work.resolve("kafka"), 0) : null;
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                     broker == null ? bootstrapServers : broker.bootstrapServers()))) {
            String bootstrap = broker == null ? bootstrapServers : broker.bootstrapServers();
            topics.createInputs(admin, partitions);
            long now = System.currentTimeMillis() / 1000 * 1000;
            out.printf("sizing: %,d nodes x %d NICs (%,d ports), jobs of %d nodes; %d s backlog, then live at 1 Hz "
                            + "for %d s; %d partitions; JVMs -Xmx%s; %d CPU cores on this machine%n", nodes, devices,
                    nodes * devices, nodesPerJob, backlogSeconds, liveSeconds, partitions, heap,
                    Runtime.getRuntime().availableProcessors());
            try (SizingLoad load = SizingLoad.create(nodes, devices, nodesPerJob, now - backlogSeconds * 1000L,
                    topics, bootstrap)) {
                long backlog = load.sendUntil(now);
                load.flush();
                out.printf("backlog: %,d records (%,d port and host samples per second)%n", backlog,
                        load.recordsPerSecond());
                out.flush();
                ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor();
                if (liveSeconds > 0) {
                    clock.scheduleWithFixedDelay(() -> load.sendUntil(System.currentTimeMillis()), 0, 50,
                            TimeUnit.MILLISECONDS);
                }
                try {
                    measureStreams(out, admin, bootstrap, topics, load, clock, work, run);
                } finally {
                    clock.shutdownNow();
                }
            }
            if (sink) {
                measureSink(out, admin, bootstrap, topics, work, run);
            }
        } finally {
            FileTrees.deleteQuietly(work);
        }
        return 0;
    }

    private void measureStreams(PrintWriter out, Admin admin, String bootstrap, SizingTopics topics, SizingLoad load,
                                ScheduledExecutorService clock, Path work, String run) throws Exception {
        Path stateDir = work.resolve("streams-state");
        String appId = "sizing-" + run;
        List<String> args = new ArrayList<>(List.of("streams", "--bootstrap-servers", bootstrap, "--application-id",
                appId, "--state-dir", stateDir.toString(), "--metrics-port", "-1",
                "--set", StreamsAppConfig.THREADS_CONFIG + "=" + threads,
                "--set", StreamsAppConfig.TOPICS_PARTITIONS_CONFIG + "=" + partitions));
        args.addAll(topics.streamsSettings());
        streamsSettings.forEach(setting -> args.addAll(List.of("--set", setting)));
        List<String> inputs = List.of(topics.portSamples(), topics.hostSamples(), topics.jobs());
        // caught up: less than two seconds of records behind
        long closeEnough = 2 * load.recordsPerSecond();
        try (ChildJvm app = ChildJvm.startServerRole(heap, work.resolve("streams.log"), args,
                ChildJvm.splitOptions(streamsJvmOptions))) {
            long t0 = System.nanoTime();
            // --live 0: the backlog alone, read to its end (for sizes this machine cannot run live)
            long consumed = awaitLagBelow(admin, appId, inputs, app, liveSeconds > 0 ? closeEnough : 1);
            double seconds = (System.nanoTime() - t0) / 1e9;
            double cpu = app.cpuSeconds();
            log.info("stream app caught up");
            out.printf("stream app, catch-up (the backlog and what arrived meanwhile): %,d records in %.1f s = %,.0f "
                            + "records/s; %.3f CPU ms per record (start-up included)%n", consumed, seconds,
                    consumed / seconds, cpu * 1000 / consumed);
            out.flush();

            if (liveSeconds > 0) {
                double cpuBefore = app.cpuSeconds();
                ThreadTicks threadsBefore = ThreadTicks.of(app.pid());
                long sentBefore = load.sendUntil(System.currentTimeMillis());
                Map<String, Long> writtenBefore = StreamsBenchmark.endOffsetsByTopic(admin, topics, appId);
                Predicate<String> appOrSamples = t -> topics.writtenBy(appId, t) || topics.isSamples(t);
                Map<String, Long> bytesBefore = KafkaOffsets.logBytesByTopic(admin, appOrSamples);
                long liveStart = System.nanoTime();
                long halfway = liveStart + TimeUnit.SECONDS.toNanos(liveSeconds) / 2;
                double halfCpu = 0;
                ThreadTicks halfThreads = null;
                long halfAt = 0;
                while (System.nanoTime() - liveStart < TimeUnit.SECONDS.toNanos(liveSeconds)) {
                    app.checkAlive();
                    Thread.sleep(1000);
                    if (halfThreads == null && System.nanoTime() >= halfway) {
                        halfCpu = app.cpuSeconds();
                        halfThreads = ThreadTicks.of(app.pid());
                        halfAt = System.nanoTime();
                    }
                }
                long liveEnd = System.nanoTime();
                double live = (liveEnd - liveStart) / 1e9;
                double cores = (app.cpuSeconds() - cpuBefore) / live;
                long sent = load.sendUntil(System.currentTimeMillis()) - sentBefore;
                long lag = lag(admin, appId, inputs);
                out.printf("stream app, live: %,d records in %.0f s (%,.0f records/s): %.2f CPU cores on average; %,d "
                                + "records behind at the end (%s)%n", sent, live, sent / live, cores, lag,
                        lag <= closeEnough ? "kept up" : "fell behind");
                ThreadTicks threadsAfter = ThreadTicks.of(app.pid());
                out.printf("  its threads, live: %s%n", coresByThread(threadsAfter.since(threadsBefore), live));
                // what the app wrote meanwhile, up to a commit interval of it still in its open transaction
                Map<String, Long> written = since(writtenBefore,
                        StreamsBenchmark.endOffsetsByTopic(admin, topics, appId));
                long writes = sum(written);
                out.printf("  its Kafka writes, live: %,.0f records/s = %.3f per input record (%s)%n", writes / live,
                        (double) writes / sent, StreamsBenchmark.perTopic(written, appId));
                Map<String, Long> kibPerSecond = new HashMap<>();
                since(bytesBefore, KafkaOffsets.logBytesByTopic(admin, appOrSamples))
                        .forEach((topic, bytes) -> kibPerSecond.put(topic, Math.round(bytes / 1024.0 / live)));
                Map<String, Long> samplesIn = new HashMap<>(kibPerSecond);
                samplesIn.keySet().removeIf(t -> !topics.isSamples(t));
                kibPerSecond.keySet().removeIf(topics::isSamples);
                out.printf("  its Kafka bytes, live: %,d KiB/s into the brokers' logs, against %,d KiB/s of samples in "
                                + "as this load sends them, in large zstd batches (KiB/s: %s)%n", sum(kibPerSecond),
                        sum(samplesIn), StreamsBenchmark.perTopic(kibPerSecond, appId));
                if (halfThreads != null && liveEnd > halfAt) {
                    // the JIT still compiles in the first minute or two of live traffic: the second half is closer
                    // to what a long-running app pays
                    double half = (liveEnd - halfAt) / 1e9;
                    out.printf("  second half of live: %.2f CPU cores; its threads: %s%n",
                            (app.cpuSeconds() - halfCpu) / half, coresByThread(threadsAfter.since(halfThreads), half));
                }
            }
            clock.shutdownNow();
            clock.awaitTermination(10, TimeUnit.SECONDS);
            load.flush();
            awaitLagBelow(admin, appId, inputs, app, 1);
            Map<String, Long> alerts = new TreeMap<>();
            List<String> examples = new ArrayList<>();
            forEachRecord(bootstrap, topics.alerts(), value -> {
                alerts.merge(alertKind(value), 1L, Long::sum);
                if (examples.size() < 3) {
                    examples.add(new String(value, java.nio.charset.StandardCharsets.UTF_8));
                }
            });
            examples.forEach(e -> log.info("alert raised during the sizing run: {}", e));
            out.printf("stream app, output: %,d link-health records, %,d job-bandwidth records, alerts %s%n",
                    forEachRecord(bootstrap, topics.linkHealth(), value -> { }),
                    forEachRecord(bootstrap, topics.jobBandwidth(), value -> { }), liveSeconds > 0
                            ? alerts + " (the cluster is healthy: every alert is a false positive)"
                            : "not judged (every collector stops at the end of the backlog, so all nodes go silent)");
            ChildJvm.Resident rss = app.residentBytes();
            long liveHeap = app.liveHeapBytes();
            long state = FileTrees.sizeBytes(stateDir);
            out.printf("stream app, memory: live heap after full GC %s; resident %s (peak %s); state directory %s%n",
                    mib(liveHeap), mib(rss.now()), mib(rss.peak()), mib(state));
            out.flush();
        }
    }

    private void measureSink(PrintWriter out, Admin admin, String bootstrap, SizingTopics topics, Path work,
                             String run) throws Exception {
        try (InfluxdProcess influx = InfluxdProcess.startInTempDir(false)) {
            long records;
            List<String> influxSettings = List.of("--set", InfluxSettings.URL_CONFIG + "=" + influx.url());
            List<String> init = new ArrayList<>(List.of("influx", "init"));
            init.addAll(influxSettings);
            try (ChildJvm setup = ChildJvm.start("256m", work.resolve("influx-init.log"), init)) {
                setup.awaitExit(Duration.ofMinutes(2));
            }
            String group = "sizing-sink-" + run;
            List<String> args = new ArrayList<>(List.of("sink", "--set", "kafka.bootstrap.servers=" + bootstrap,
                    "--set", "kafka.group.id=" + group, "--set", "metrics.port=-1"));
            args.addAll(influxSettings);
            args.addAll(topics.sinkSettings());
            try (ChildJvm sinkJvm = ChildJvm.startServerRole(heap, work.resolve("sink.log"), args, List.of())) {
                long t0 = System.nanoTime();
                double influxCpuBefore = ChildJvm.cpuSeconds(influx.pid());
                records = awaitLagBelow(admin, group, topics.sinkInputs(), sinkJvm, 1);
                double seconds = (System.nanoTime() - t0) / 1e9;
                double cpu = sinkJvm.cpuSeconds();
                double influxCpu = ChildJvm.cpuSeconds(influx.pid()) - influxCpuBefore;
                ChildJvm.Resident rss = sinkJvm.residentBytes();
                long liveHeap = sinkJvm.liveHeapBytes();
                double perSecond = nodes * (devices * 2 + 1.0);
                out.printf("sink, catch-up: %,d offsets (records and ~1 %% transaction markers) in %.1f s = %,.0f points/s; "
                        + "%.3f CPU ms per point%n", records,
                        seconds, records / seconds, cpu * 1000 / records);
                out.printf("sink, memory: live heap after full GC %s; resident %s (peak %s)%n", mib(liveHeap),
                        mib(rss.now()), mib(rss.peak()));
                out.printf("influxd (local, %s), during the catch-up: %.3f CPU ms per point%n",
                        InfluxdProcess.findBinary().map(Path::toString).orElse("?"), influxCpu * 1000 / records);
                out.printf("for this cluster at 1 Hz (~%,.0f points/s: port samples, link health, host samples): sink "
                        + "%.2f CPU cores, influxd %.2f CPU cores%n", perSecond, perSecond * cpu / records,
                        perSecond * influxCpu / records);
            }
            reportDisk(out, influx, records, nodes * (devices * 2 + 1.0));
        }
    }

    /**
     * InfluxDB's disk for the raw points: the TSM files of the raw retention policy once influxd has written its
     * cache out (5 s after the last write, see InfluxdProcess), divided by the points written. Longer series compress
     * better (1,200 points per series took 26.5 bytes per point, 150 took 44.1), so plan with a long backlog.
     */
    private void reportDisk(PrintWriter out, InfluxdProcess influx, long records, double recordsPerSecond)
            throws Exception {
        Path wal = influx.dir().resolve("wal").resolve(InfluxSettings.DEFAULT_DATABASE);
        Path tsm = influx.dir().resolve("data").resolve(InfluxSettings.DEFAULT_DATABASE)
                .resolve(InfluxSettings.DEFAULT_RETENTION_POLICY);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (FileTrees.sizeBytes(wal) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(500);
        }
        long walBytes = FileTrees.sizeBytes(wal);
        long tsmBytes = FileTrees.sizeBytes(tsm);
        long points;
        try (InfluxDB client = InfluxDBFactory.connect(influx.url())) {
            QueryResult.Series stats = client.query(new Query("SHOW STATS FOR 'write'")).getResults().get(0)
                    .getSeries().get(0);
            points = ((Number) stats.getValues().get(0).get(stats.getColumns().indexOf("pointReq"))).longValue();
        }
        double perPoint = (double) tsmBytes / points;
        double pointsPerSecond = recordsPerSecond * points / records;
        out.printf("influxd disk: %s of TSM files in %s for %,d points written = %.1f bytes per point%s; at 1 Hz "
                        + "%s per day for this cluster%n", mib(tsmBytes), InfluxSettings.DEFAULT_RETENTION_POLICY,
                points, perPoint, walBytes > 0 ? " (" + mib(walBytes) + " still in the WAL)" : "",
                mib((long) (perPoint * pointsPerSecond * 86_400)));
    }

    /** Waits until {@code group} is less than {@code records} behind on {@code inputs}; returns what it consumed. */
    private long awaitLagBelow(Admin admin, String group, Collection<String> inputs, ChildJvm role, long records)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (true) {
            role.checkAlive();
            Map<TopicPartition, Long> committed = KafkaOffsets.committed(admin, group);
            if (lag(admin, committed, inputs) < records) {
                // the stream app's group also holds its repartition topics: count the inputs only
                return committed.entrySet().stream().filter(e -> inputs.contains(e.getKey().topic()))
                        .mapToLong(Map.Entry::getValue).sum();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(group + " did not catch up within " + timeoutSeconds + " s");
            }
            Thread.sleep(500);
        }
    }

    private static long lag(Admin admin, String group, Collection<String> inputs) throws Exception {
        return lag(admin, KafkaOffsets.committed(admin, group), inputs);
    }

    /**
     * Records not yet consumed by the group, on {@code inputs} and on every other topic it commits (the stream app's
     * repartition topics, which it writes in transactions: their last offset may be a marker, never consumed).
     */
    private static long lag(Admin admin, Map<TopicPartition, Long> committed, Collection<String> inputs)
            throws Exception {
        Set<String> topics = new HashSet<>(inputs);
        committed.keySet().forEach(p -> topics.add(p.topic()));
        return KafkaOffsets.endOffsets(admin, topics).entrySet().stream().mapToLong(e -> {
            long marker = inputs.contains(e.getKey().topic()) ? 0 : 1;
            return Math.max(0, e.getValue() - committed.getOrDefault(e.getKey(), 0L) - marker);
        }).sum();
    }

    private static String alertKind(byte[] json) {
        try {
            Alert a = Json.MAPPER.readValue(json, Alert.class);
            return a.type() + " " + a.status();
        } catch (java.io.IOException e) {
            return "unreadable";
        }
    }

    /** Reads the committed records of {@code topic} from the beginning; returns how many there were. */
    private long forEachRecord(String bootstrap, String topic, java.util.function.Consumer<byte[]> action)
            throws TimeoutException {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class))) {
            return TopicReader.readToEnd(consumer, topic, Duration.ofSeconds(timeoutSeconds),
                    record -> action.accept(record.value()));
        }
    }

    private static String mib(long bytes) {
        return String.format("%,.0f MiB", bytes / (1024.0 * 1024.0));
    }

    /** The busiest threads' CPU over {@code seconds}, as {@code name 0.123 cores}. */
    private static String coresByThread(Map<String, Long> ticks, double seconds) {
        return ThreadTicks.secondsLargestFirst(ticks).entrySet().stream().limit(6)
                .map(e -> String.format("%s %.3f cores", e.getKey(), e.getValue() / seconds))
                .collect(java.util.stream.Collectors.joining(", "));
    }

    /** Per topic, how much {@code after} grew since {@code before}. */
    private static Map<String, Long> since(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> grown = new HashMap<>(after);
        grown.replaceAll((topic, value) -> value - before.getOrDefault(topic, 0L));
        return grown;
    }

    private static long sum(Map<String, Long> perTopic) {
        return perTopic.values().stream().mapToLong(Long::longValue).sum();
    }
}
