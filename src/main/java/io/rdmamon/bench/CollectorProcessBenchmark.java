package io.rdmamon.bench;

import io.rdmamon.collector.CollectorJvmOptions;
import io.rdmamon.collector.CollectorMain;
import io.rdmamon.collector.eadm.EadmSimScript;
import io.rdmamon.model.Topics;
import io.rdmamon.sim.SysfsTreeWriter;
import io.rdmamon.sim.SysfsTreeWriter.DeviceKind;
import io.rdmamon.support.ClassDataArchive;
import io.rdmamon.support.EmbeddedKafkaBroker;
import io.rdmamon.support.FileTrees;
import io.rdmamon.support.KafkaOffsets;
import io.rdmamon.support.LogFiles;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What the node pays for the collector: the real collector as a process of its own (its JVM options from {@code
 * collector/jvm.options}, its own class path), sampling a simulated node whose counters move every interval,
 * supervising a simulated eadm per eRDMA device and publishing to a real broker; beside it, in the same run and on the
 * same tree, node_exporter with only its infiniband collector, scraped once per interval. CPU per pass and resident
 * memory of both come from /proc (all threads), as do the collector's per-thread figures.
 *
 * <p>The collector keeps its files open ({@code collector.sysfs.keep.open=always}) and the tree is written in place,
 * as sysfs values change. node_exporter 1.5 reports nothing unless every port has a {@code counters/} folder and every
 * device a {@code board_id}: its copy of the tree gets those (eRDMA has neither).
 */
final class CollectorProcessBenchmark {
    private static final int MLX5_DEVICES = 4;
    private static final int MLX5_PORTS = 2;
    private static final int ERDMA_DEVICES = 4;
    private static final Pattern TIME_OF_DAY = Pattern.compile("\\d\\d:\\d\\d:\\d\\d\\.\\d{3}");

    /** @param settings collector settings ({@code key=value}) on top of the benchmark's own */
    record Options(Duration interval, Duration warmup, Duration measure, List<String> jvmOptions, boolean fullClassPath,
                   String nodeExporter, List<String> settings) {
    }

    private CollectorProcessBenchmark() {
    }

    static void run(Options options, PrintWriter out) throws Exception {
        Path work = Files.createTempDirectory(SysfsTreeWriter.preferredTempRoot(), "rdmamon-bench-process");
        try {
            run(options, work, out);
        } finally {
            FileTrees.deleteQuietly(work);
        }
    }

    private static void run(Options options, Path work, PrintWriter out) throws Exception {
        SysfsTreeWriter tree = node(SysfsTreeWriter.inPlace(work.resolve("collector-sys")));
        SysfsTreeWriter exporterTree = node(SysfsTreeWriter.inPlace(work.resolve("node-exporter-sys")));
        completeForNodeExporter(exporterTree);
        long files = counterFiles(tree.root());
        Path eadm = EadmSimScript.install(work.resolve("eadm"));
        long intervalMs = options.interval().toMillis();
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(work.resolve("kafka"), 0)) {
            createTopics(broker.bootstrapServers());
            List<String> args = new ArrayList<>(List.of("--sysfs", tree.root().toString(), "--interval",
                    intervalMs + "ms", "--node", "bench-node", "--bootstrap-servers", broker.bootstrapServers(),
                    "--metrics-port", "0", "--set", "collector.sysfs.keep.open=always",
                    "--set", "collector.buffer.spill.path=" + work.resolve("spill"),
                    "--set", "eadm.command=" + EadmSimScript.command(eadm, tree.root())));
            options.settings().forEach(setting -> args.addAll(List.of("--set", setting)));
            long startMs = System.currentTimeMillis();
            try (RecordCounter records = RecordCounter.start(broker.bootstrapServers(), Topics.PORT_SAMPLES);
                 ChildJvm collector = ChildJvm.start(jvmOptions(options), classPath(options.fullClassPath()),
                    CollectorMain.class.getName(), work.resolve("collector.log"), args,
                    CollectorJvmOptions.ENVIRONMENT);
                 NodeExporterProcess exporter = options.nodeExporter().isEmpty() ? null
                         : NodeExporterProcess.start(options.nodeExporter(), exporterTree.root(),
                         work.resolve("node-exporter.log"))) {
                long ticks = runFor(options.warmup(), intervalMs, tree, exporterTree, exporter, collector);
                double cpu0 = collector.cpuSeconds();
                double exporterCpu0 = exporter == null ? 0 : ChildJvm.cpuSeconds(exporter.pid());
                ThreadTicks threads0 = ThreadTicks.of(collector.pid());
                long records0 = records.count();
                long measured = runFor(options.measure(), intervalMs, tree, exporterTree, exporter, collector);
                double cpu = collector.cpuSeconds() - cpu0;
                ChildJvm.Resident resident = collector.residentBytes();
                Map<String, Long> threads = ThreadTicks.of(collector.pid()).since(threads0);
                long received = records.count() - records0;
                if (received == 0) {
                    throw new IllegalStateException("the collector published nothing; end of its log:\n"
                            + String.join("\n", LogFiles.lastLines(work.resolve("collector.log"), 30)));
                }
                out.printf("collector process beside node_exporter, same node: %d mlx5 x %d ports + %d eRDMA x 1 port, "
                                + "%d counter files; interval %d ms, %d s warm-up (%d passes), %d passes measured%n",
                        MLX5_DEVICES, MLX5_PORTS, ERDMA_DEVICES, files, intervalMs, options.warmup().toSeconds(),
                        ticks, measured);
                out.printf("  JVM options: %s; environment: %s; class path: %s; settings: %s%n",
                        String.join(" ", jvmOptions(options)), CollectorJvmOptions.ENVIRONMENT,
                        options.fullClassPath() ? "all of rdmamon's" : classPath(false),
                        options.settings().isEmpty() ? "defaults" : String.join(" ", options.settings()));
                out.printf("  %-28s %10s %12s %12s%n", "", "CPU/pass", "resident", "peak");
                out.printf("  %-28s %7.2f ms %8.1f MiB %8.1f MiB%n", "rdmamon collector", cpu * 1000 / measured,
                        mib(resident.now()), mib(resident.peak()));
                if (exporter != null) {
                    double exporterCpu = ChildJvm.cpuSeconds(exporter.pid()) - exporterCpu0;
                    ChildJvm.Resident exporterResident = ChildJvm.residentBytes(exporter.pid());
                    out.printf("  %-28s %7.2f ms %8.1f MiB %8.1f MiB%n", "node_exporter (infiniband)",
                            exporterCpu * 1000 / measured, mib(exporterResident.now()), mib(exporterResident.peak()));
                    out.printf("  collector / node_exporter:   CPU %.2fx, resident %.2fx%n", cpu / exporterCpu,
                            (double) resident.now() / exporterResident.now());
                }
                out.printf("  first record on Kafka %.2f s after the collector process started; %d records in the "
                        + "measured passes (%d expected)%n", (records.firstTimestamp() - startMs) / 1e3, received,
                        measured * (MLX5_DEVICES * MLX5_PORTS + ERDMA_DEVICES));
                out.printf("  on the wire: %.0f bytes per port record (record batches as the broker stored them, "
                        + "from start)%n", (double) batchBytes(work.resolve("kafka")) / records.count());
                out.printf("  collector log: first line %.2f s, sampling from %.2f s after the process started%n",
                        logSeconds(work.resolve("collector.log"), "", startMs),
                        logSeconds(work.resolve("collector.log"), "CollectorCommand - collector on node", startMs));
                List<String> warnings = Files.readAllLines(work.resolve("collector.log")).stream()
                        .filter(line -> line.contains(" WARN ") || line.contains(" ERROR ")).limit(5).toList();
                warnings.forEach(line -> out.println("  collector log: " + line));
                out.printf("  collector CPU by thread, ms per pass:%s%n", ThreadTicks.secondsLargestFirst(threads)
                        .entrySet().stream().filter(e -> e.getValue() > 0).limit(8)
                        .map(e -> String.format(" %s %.2f", e.getKey(), e.getValue() * 1000 / measured))
                        .collect(Collectors.joining(";")));
                out.flush();
            }
        }
    }

    /** The simulated node: mlx5 RoCE ports with counters/ and hw_counters/, eRDMA in both namings. */
    private static SysfsTreeWriter node(SysfsTreeWriter tree) {
        for (int d = 0; d < MLX5_DEVICES; d++) {
            tree.addDevice("mlx5_" + d, DeviceKind.MLX5, MLX5_PORTS, SysfsTreeWriter.ETHERNET);
        }
        for (int d = 0; d < ERDMA_DEVICES; d++) {
            tree.addDevice("erdma_" + d, d % 2 == 0 ? DeviceKind.ERDMA_UPSTREAM : DeviceKind.ERDMA_OUT_OF_TREE, 1,
                    SysfsTreeWriter.ETHERNET);
        }
        return tree;
    }

    /** Traffic on every port, and an error counter that moves now and then. */
    private static void tick(SysfsTreeWriter tree, long pass) {
        for (int d = 0; d < MLX5_DEVICES; d++) {
            for (int p = 1; p <= MLX5_PORTS; p++) {
                tree.addTraffic("mlx5_" + d, p, 1_000_000_000L, 900_000_000L, 250_000, 240_000);
                tree.addCounter("mlx5_" + d, p, "np_cnp_sent", pass % 3);
            }
        }
        for (int d = 0; d < ERDMA_DEVICES; d++) {
            tree.addTraffic("erdma_" + d, 1, 500_000_000L, 450_000_000L, 120_000, 110_000);
        }
    }

    /** node_exporter 1.5 needs a counters/ folder on every port and a board_id on every device. */
    private static void completeForNodeExporter(SysfsTreeWriter tree) throws IOException {
        for (int d = 0; d < ERDMA_DEVICES; d++) {
            Path port = tree.portDir("erdma_" + d, 1);
            Files.createDirectories(port.resolve("counters"));
            Files.writeString(port.getParent().getParent().resolve("board_id"), "ERDMA_BOARD\n");
        }
    }

    /** Moves the counters and scrapes node_exporter once per interval; returns the intervals run. */
    private static long runFor(Duration duration, long intervalMs, SysfsTreeWriter tree, SysfsTreeWriter exporterTree,
                               NodeExporterProcess exporter, ChildJvm collector) throws Exception {
        long intervals = Math.max(1, duration.toMillis() / intervalMs);
        long next = System.nanoTime();
        for (long i = 0; i < intervals; i++) {
            tick(tree, i);
            tick(exporterTree, i);
            if (exporter != null) {
                exporter.scrape();
            }
            collector.checkAlive();
            next += intervalMs * 1_000_000;
            long sleep = next - System.nanoTime();
            if (sleep > 0) {
                Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
            }
        }
        return intervals;
    }

    /** The bytes of the port-sample topic's record batches in the broker's log: what the producer sent, compressed. */
    private static long batchBytes(Path logDir) throws IOException {
        try (Stream<Path> files = Files.walk(logDir)) {
            return files.filter(f -> f.getParent().getFileName().toString().startsWith(Topics.PORT_SAMPLES + "-")
                    && f.getFileName().toString().endsWith(".log")).mapToLong(f -> f.toFile().length()).sum();
        }
    }

    private static long counterFiles(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root.resolve("devices"))) {
            return files.filter(Files::isRegularFile).count();
        }
    }

    /**
     * Creates the topics, then waits until an idempotent producer gets a record through: a fresh broker hands out its
     * first producer ids only after some seconds, which the collector's time to first record must not include.
     */
    private static void createTopics(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            // the broker stamps each record when it appends it: the time the collector's first record was published
            KafkaOffsets.createTopics(admin, List.of(new NewTopic(Topics.PORT_SAMPLES, 4, (short) 1)
                            .configs(Map.of("message.timestamp.type", "LogAppendTime")),
                    new NewTopic(Topics.HOST_SAMPLES, 4, (short) 1), new NewTopic("bench.ready", 1, (short) 1)));
        }
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.ACKS_CONFIG, "all"), new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>("bench.ready", new byte[0])).get();
        }
    }

    /**
     * As the launcher runs the collector: its class-data archive (on its own class path, from the jar), then the given
     * options, which may override it ({@code -Xshare:off}, another {@code -XX:SharedArchiveFile}).
     */
    private static List<String> jvmOptions(Options options) {
        List<String> jvm = new ArrayList<>(options.fullClassPath() ? List.of()
                : ClassDataArchive.COLLECTOR.jvmOptions());
        jvm.addAll(options.jvmOptions());
        return jvm;
    }

    /** The collector's own class path (see {@link ClassDataArchive#classPath()}), or the whole of rdmamon's. */
    private static String classPath(boolean full) {
        return full ? System.getProperty("java.class.path") : ClassDataArchive.COLLECTOR.classPath();
    }

    /** When the first log line holding {@code text} was written, in seconds after {@code startMs}; NaN if none. */
    private static double logSeconds(Path log, String text, long startMs) throws IOException {
        LocalTime start = Instant.ofEpochMilli(startMs).atZone(ZoneId.systemDefault()).toLocalTime();
        // lines of the JVM's own logging (-Xlog, a JFR recording given with --jvm) carry no time of day
        return Files.readAllLines(log).stream()
                .filter(line -> line.contains(text) && TIME_OF_DAY.matcher(line).lookingAt())
                .map(line -> LocalTime.parse(line.substring(0, 12))).findFirst()
                .map(t -> Duration.between(start, t).toMillis() / 1e3).orElse(Double.NaN);
    }

    private static double mib(long bytes) {
        return bytes / 1024.0 / 1024.0;
    }
}
