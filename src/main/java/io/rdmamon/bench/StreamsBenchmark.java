package io.rdmamon.bench;

import io.rdmamon.model.RecordParser;
import io.rdmamon.streams.StreamsAppConfig;
import io.rdmamon.streams.StreamsCommand;
import io.rdmamon.support.EmbeddedKafkaBroker;
import io.rdmamon.support.FileTrees;
import io.rdmamon.support.KafkaOffsets;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * {@code rdmamon bench streams}: the stream app against the physical limit of this machine. A backlog of a healthy
 * cluster's samples goes to a broker; a plain {@code KafkaConsumer} that decodes every record reads it once, then the
 * stream app (exactly-once, its default settings) works through it. Both run as JVMs of their own, measured from
 * their start to the last record, CPU from /proc (all threads). Kafka writes per sample are the end offsets of every
 * topic the app wrote (outputs, repartition and changelog topics, transaction markers included) over the samples.
 * Each app was started once before the backlog was written (a deployed app restarting onto a backlog): its
 * first-ever start, which creates its internal topics, is printed on its own. {@code --floor} adds Kafka Streams with
 * the app's settings on the app's sources and decoding alone: what reading the backlog costs any Kafka Streams app.
 * {@code --rounds} repeats every run in rotated order and prints medians, since single runs here differ by a tenth.
 */
@Command(name = "streams", mixinStandardHelpOptions = true,
        description = "The stream app's rate, CPU and Kafka writes per sample against a raw consumer of the same "
                + "backlog (docs/performance.md).")
public final class StreamsBenchmark implements Callable<Integer> {
    @Option(names = "--nodes", defaultValue = "250", description = "GPU nodes (default ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--idle-nodes", defaultValue = "0", description = "Nodes more, with no job (default "
            + "${DEFAULT-VALUE}): their samples are judged without one, as on a partly idle cluster.")
    int idleNodes;

    @Option(names = "--devices", defaultValue = "8", description = "RDMA NICs per node (default ${DEFAULT-VALUE}).")
    int devices;

    @Option(names = "--gpus-per-node", defaultValue = "0", description = "Also run on the same cluster with this many "
            + "GPU samples per node and second (rdma.gpu-samples), and print both side by side (default "
            + "${DEFAULT-VALUE}: no GPU samples).")
    int gpusPerNode;

    @Option(names = "--seconds", defaultValue = "240", description = "Seconds of samples in the backlog (default "
            + "${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--nic-stamp-spread", defaultValue = "0", paramLabel = "MS", description = "Stamp each sample "
            + "when its NIC is read, as a collector may: a node's samples of one pass spread over up to this many ms "
            + "(default ${DEFAULT-VALUE}: one ts per pass).")
    long nicStampSpreadMs;

    @Option(names = "--partitions", defaultValue = "6", description = "Partitions of every topic (default "
            + "${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--heap", defaultValue = "1g", description = "Max heap of each measured JVM (default "
            + "${DEFAULT-VALUE}).")
    String heap;

    @Option(names = "--bootstrap-servers", description = "An existing broker; default: an in-process one.")
    String bootstrapServers;

    @Option(names = "--timeout", defaultValue = "900", description = "Seconds to wait for each reader (default "
            + "${DEFAULT-VALUE}).")
    int timeoutSeconds;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "A setting of the stream app (repeatable), "
            + "e.g. streams.threads=2.")
    List<String> appSettings = new ArrayList<>();

    @Option(names = "--compare-jvm-options", paramLabel = "OPTIONS", description = "Also run the app with these JVM "
            + "options (space-separated, after server/jvm.options; repeatable, one variant each), e.g. "
            + "'-XX:TieredStopAtLevel=1' or '-XX:-UseParallelGC -XX:+UseG1GC'. Each run, the "
            + "defaults' included, follows a raw consumer run of its own, so each ratio is taken side by side.")
    List<String> jvmVariants = new ArrayList<>();

    @Option(names = "--compare-set", paramLabel = "KEY=VALUE...", description = "Also run the app with these "
            + "settings (space-separated, after --set; repeatable, one variant each), e.g. "
            + "'streams.commit.interval.ms=1000'. Runs like a --compare-jvm-options variant.")
    List<String> settingVariants = new ArrayList<>();

    @Option(names = "--floor", description = "Also run the floor: Kafka Streams with the app's settings "
            + "(exactly-once, commit interval, fetch batching, JVM options) whose topology only reads and decodes the "
            + "samples, after a raw consumer run of its own: the least any Kafka Streams app pays on this backlog.")
    boolean floor;

    @Option(names = "--rounds", defaultValue = "1", description = "Run the defaults and every variant this many "
            + "times, each round in a rotated order (A B, then B A), then print each one's median and range "
            + "(default ${DEFAULT-VALUE}). Two runs of the same settings here differ by a tenth or more: only "
            + "medians over rounds in both orders tell a change of a few percent.")
    int rounds;

    @Option(names = "--keep", description = "Keep the work folder (the readers' logs, the app's state) and print "
            + "its path.")
    boolean keep;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (rounds < 1) {
            throw new ParameterException(spec.commandLine(), "--rounds must be at least 1, not " + rounds);
        }
        Path work = Files.createTempDirectory("rdmamon-bench-streams");
        String run = UUID.randomUUID().toString().substring(0, 8);
        try (EmbeddedKafkaBroker broker = bootstrapServers == null
                ? EmbeddedKafkaBroker.start(work.resolve("kafka"), 0) : null) {
            String bootstrap = broker == null ? bootstrapServers : broker.bootstrapServers();
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                Measured today = measure(out, admin, bootstrap, run, 0, work.resolve("today"));
                if (gpusPerNode > 0) {
                    out.printf("%nthe same cluster with %d GPU samples per node and second beside its RDMA and host "
                            + "samples (rdma.gpu-samples):%n", gpusPerNode);
                    Measured gpus = measure(out, admin, bootstrap, run + "-gpus", gpusPerNode, work.resolve("gpus"));
                    out.printf("%nside by side (stream app, defaults): without GPU samples %.3f Kafka writes and "
                                    + "%.4f CPU ms per input sample (second half %.4f); with %d GPUs per node %.3f "
                                    + "and %.4f (second half %.4f)%n", today.writesPerSample(), today.cpuMsPerSample(),
                            today.app().warmCpuMsPerSample(), gpusPerNode, gpus.writesPerSample(),
                            gpus.cpuMsPerSample(), gpus.app().warmCpuMsPerSample());
                }
                out.flush();
            }
        } finally {
            if (keep) {
                out.printf("work folder kept: %s%n", work);
            } else {
                FileTrees.deleteQuietly(work);
            }
        }
        return 0;
    }

    /** The first run of the app's defaults on one backlog: its reading, input samples and Kafka writes. */
    private record Measured(Reading app, long samples, long writes) {
        double writesPerSample() {
            return (double) writes / samples;
        }

        double cpuMsPerSample() {
            return app.cpuSeconds * 1000 / samples;
        }
    }

    /** Every variant's runs on a backlog of the run's own topics ({@code gpus} GPU samples per node and second). */
    private Measured measure(PrintWriter out, Admin admin, String bootstrap, String run, int gpus, Path work)
            throws Exception {
        Files.createDirectories(work);
        SizingTopics topics = SizingTopics.forRun(run);
        topics.createInputs(admin, partitions);
        List<Variant> variants = new ArrayList<>(List.of(new Variant(List.of(), List.of(), false)));
        jvmVariants.forEach(options -> variants.add(new Variant(ChildJvm.splitOptions(options), List.of(),
                false)));
        settingVariants.forEach(settings -> variants.add(new Variant(List.of(),
                ChildJvm.splitOptions(settings), false)));
        if (floor) {
            variants.add(new Variant(List.of(), List.of(), true));
        }
        List<Run> runs = Run.rotated(variants.size(), rounds, run);
        for (int i = 0; i < runs.size(); i++) {
            double seconds = firstStart(bootstrap, topics, runs.get(i).appId(), work.resolve("app-" + i),
                    variants.get(runs.get(i).variant()));
            out.printf("first start of app %d on the empty topics (creates its internal topics): running "
                    + "after %.1f s%n", i, seconds);
            out.flush();
        }
        long now = System.currentTimeMillis() / 1000 * 1000;
        long samples;
        try (SizingLoad load = SizingLoad.create(nodes, idleNodes, devices, gpus, 8, now - seconds * 1000L, null,
                topics, bootstrap).nicStampSpread(nicStampSpreadMs)) {
            load.sendUntil(now);
            load.flush();
        }
        List<String> sampleTopics = List.of(topics.portSamples(), topics.hostSamples(), topics.gpuSamples());
        samples = KafkaOffsets.endOffsets(admin, sampleTopics).values().stream().mapToLong(Long::longValue)
                .sum();
        out.printf("backlog: %,d samples (%,d nodes x %d NICs + 1 host interface%s, %d s at 1 Hz, jobs of 8 "
                + "nodes%s%s), %d partitions; %d CPU cores here%n", samples, nodes + idleNodes, devices,
                gpus == 0 ? "" : " + " + gpus + " GPUs", seconds,
                idleNodes == 0 ? "" : String.format(" on %,d; %,d nodes without a job", nodes, idleNodes),
                nicStampSpreadMs == 0 ? "" : String.format("; each sample stamped when read, a pass's up to "
                        + "%d ms apart", nicStampSpreadMs), partitions, Runtime.getRuntime().availableProcessors());
        out.flush();

        List<List<SideBySide>> byVariant = new ArrayList<>();
        variants.forEach(v -> byVariant.add(new ArrayList<>()));
        Measured first = null;
        for (int i = 0; i < runs.size(); i++) {
            if (rounds > 1 && i % variants.size() == 0) {
                out.printf("round %d of %d%n", i / variants.size() + 1, rounds);
            }
            Reading raw = measureRaw(bootstrap, sampleTopics, samples, work);
            out.printf("raw consumer (KafkaConsumer, every record decoded): %s%n", raw.describe(samples));
            out.printf("  its threads: %s%n", raw.topThreads(6));
            out.flush();
            Run r = runs.get(i);
            long[] writes = new long[1];
            Reading app = measureAndPrintApp(out, admin, bootstrap, topics, r.appId(), samples,
                    work.resolve("app-" + i), variants.get(r.variant()), raw, writes);
            byVariant.get(r.variant()).add(new SideBySide(raw, app));
            if (first == null && r.variant() == 0) {
                first = new Measured(app, samples, writes[0]);
            }
        }
        if (rounds > 1) {
            out.printf("over %d rounds in rotated order, median [lowest-highest]:%n", rounds);
            for (int v = 0; v < variants.size(); v++) {
                out.printf("  %s: %s%n", variants.get(v).describe(appSettings),
                        Reading.summary(byVariant.get(v), samples));
            }
        }
        out.flush();
        return first;
    }

    /**
     * A reader's run over the backlog: from its JVM's start to the last sample, and over its second half alone, when
     * the JIT has compiled what runs hot and start-up is behind: what a reader that keeps up with a live cluster pays.
     */
    record Reading(double seconds, double cpuSeconds, double warmSeconds, double warmCpuSeconds, long warmSamples,
                   Map<String, Double> threads, Map<String, Double> warmThreads, Double startUpSeconds,
                   double startUpCpuSeconds) {
        /** Start-up (JVM start until the app ran), then the processing after it; nothing when that was not seen. */
        String startUp(long samples) {
            if (startUpSeconds == null) {
                return "";
            }
            double seconds = this.seconds - startUpSeconds;
            double cpu = cpuSeconds - startUpCpuSeconds;
            return String.format("%n  its start-up (JVM start to Kafka Streams running): %.1f s, %.1f CPU s; then "
                    + "%,.0f samples/s, %.4f CPU ms per sample", startUpSeconds, startUpCpuSeconds, samples / seconds,
                    cpu * 1000 / samples);
        }

        /** The threads that used the most CPU, as {@code name 1.2 s}: over the run, then over its second half. */
        String topThreads(int n) {
            return top(threads, n) + "; over the second half: " + top(warmThreads, n);
        }

        private static String top(Map<String, Double> threads, int n) {
            return threads.entrySet().stream().limit(n)
                    .map(e -> String.format("%s %.1f s", e.getKey(), e.getValue()))
                    .collect(Collectors.joining(", "));
        }

        String describe(long samples) {
            return String.format("%,.0f samples/s, %.4f CPU ms per sample from JVM start (%.1f s, %.1f CPU s); "
                    + "second half %,.0f samples/s, %.4f CPU ms per sample", samples / seconds,
                    cpuSeconds * 1000 / samples, seconds, cpuSeconds, warmRate(), warmCpuMsPerSample());
        }

        /**
         * Medians and ranges over runs of one variant (each a raw reading and the app's, taken side by side): the
         * rate against the raw consumer's from JVM start, CPU per sample from JVM start, and over the second half.
         */
        static String summary(List<SideBySide> runs, long samples) {
            return String.format("%s %% of the raw consumer's rate from JVM start; %s CPU ms per sample from JVM "
                            + "start; %s over the second half",
                    medianAndRange(runs, r -> 100.0 * r.raw().seconds / r.app().seconds, "%.0f"),
                    medianAndRange(runs, r -> r.app().cpuSeconds * 1000 / samples, "%.4f"),
                    medianAndRange(runs, r -> r.app().warmCpuMsPerSample(), "%.4f"));
        }

        private static String medianAndRange(List<SideBySide> runs, ToDoubleFunction<SideBySide> figure,
                                             String format) {
            double[] values = runs.stream().mapToDouble(figure).sorted().toArray();
            int n = values.length;
            double median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
            return String.format(format + " [" + format + "-" + format + "]", median, values[0], values[n - 1]);
        }

        double warmRate() {
            return warmSamples / warmSeconds;
        }

        double warmCpuMsPerSample() {
            return warmCpuSeconds * 1000 / warmSamples;
        }
    }

    /**
     * Time, CPU (per thread too) and samples read at a point of a reader's run: half of the backlog, the app running,
     * or the end.
     */
    private record Mark(long nanos, double cpuSeconds, long samples, ThreadTicks threads) {
        static Mark of(ChildJvm reader, long samples) throws IOException {
            return new Mark(System.nanoTime(), reader.cpuSeconds(), samples, ThreadTicks.of(reader.pid()));
        }

        /**
         * The reading of a run that started at {@code t0} and has read all {@code total} samples now, this being its
         * half mark; {@code running} may be null.
         */
        Reading finish(long t0, ChildJvm reader, long total, Mark running) throws IOException {
            Mark end = of(reader, total);
            return new Reading((end.nanos - t0) / 1e9, end.cpuSeconds, (end.nanos - nanos) / 1e9,
                    end.cpuSeconds - cpuSeconds, total - samples, ThreadTicks.secondsLargestFirst(end.threads.byName()),
                    ThreadTicks.secondsLargestFirst(end.threads.since(threads)),
                    running == null ? null : (running.nanos - t0) / 1e9, running == null ? 0 : running.cpuSeconds);
        }
    }

    /** A raw consumer's reading and the app's run right after it: one ratio. */
    record SideBySide(Reading raw, Reading app) {
    }

    /**
     * One measured run of a variant, under an application id of its own: each starts from the backlog's first record
     * with the state a first start left, however many rounds came before.
     */
    record Run(int variant, String appId) {
        /** {@code rounds} rounds of {@code variants} variants, round r starting at variant r (A B C, B C A, ...). */
        static List<Run> rotated(int variants, int rounds, String benchRun) {
            List<Run> runs = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                for (int j = 0; j < variants; j++) {
                    runs.add(new Run((round + j) % variants, "bench-" + benchRun + "-" + runs.size()));
                }
            }
            return runs;
        }
    }

    /**
     * One run of the app: JVM options after server/jvm.options, settings after {@code --set}'s; {@code decodeOnly}
     * runs the floor (the app's sources and decoding alone) instead of the whole topology.
     */
    private record Variant(List<String> jvmOptions, List<String> settings, boolean decodeOnly) {
        String describe(List<String> appSettings) {
            List<String> changed = new ArrayList<>(appSettings);
            changed.addAll(settings);
            changed.addAll(jvmOptions);
            String how = "exactly-once, " + (changed.isEmpty() ? "defaults" : String.join(" ", changed));
            return decodeOnly ? "Kafka Streams floor (" + how + "; sources and decoding only)"
                    : "stream app (" + how + ")";
        }
    }


    /**
     * Starts the app once before the backlog exists and stops it when it runs: its first start creates its 20-odd
     * internal topics (seconds on one broker), which a deployed app that falls behind or restarts onto a backlog has
     * already done. Nothing is consumed, so the measured run starts from the backlog's first record.
     */
    private double firstStart(String bootstrap, SizingTopics topics, String appId, Path work, Variant variant)
            throws Exception {
        Files.createDirectories(work);
        Path log = work.resolve("first-start.log");
        try (ChildJvm app = ChildJvm.startServerRole(heap, log, appArgs(bootstrap, topics, appId, work, variant),
                variant.jvmOptions())) {
            long t0 = System.nanoTime();
            long deadline = t0 + TimeUnit.SECONDS.toNanos(timeoutSeconds);
            while (!Files.readString(log).contains(StreamsCommand.RUNNING)) {
                app.checkAlive();
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the stream app did not start in " + timeoutSeconds + " s");
                }
                Thread.sleep(50);
            }
            return (System.nanoTime() - t0) / 1e9;
        }
    }

    private List<String> appArgs(String bootstrap, SizingTopics topics, String appId, Path work, Variant variant) {
        List<String> args = new ArrayList<>(List.of("streams", "--bootstrap-servers", bootstrap, "--application-id",
                appId, "--state-dir", work.resolve("state").toString(), "--metrics-port", "-1",
                "--set", StreamsAppConfig.TOPICS_PARTITIONS_CONFIG + "=" + partitions));
        if (variant.decodeOnly()) {
            args.add("--decode-only");
        }
        args.addAll(topics.streamsSettings());
        appSettings.forEach(setting -> args.addAll(List.of("--set", setting)));
        variant.settings().forEach(setting -> args.addAll(List.of("--set", setting)));
        return args;
    }

    private Reading measureRaw(String bootstrap, List<String> sampleTopics, long samples, Path work)
            throws Exception {
        Path log = work.resolve("raw.log");
        try (ChildJvm child = ChildJvm.start(heap, log, List.of("bench", "raw-consumer", "--bootstrap-servers",
                bootstrap, "--topics", String.join(",", sampleTopics)))) {
            long t0 = System.nanoTime();
            long deadline = t0 + TimeUnit.SECONDS.toNanos(timeoutSeconds);
            Mark half = null;
            while (true) {
                String text = Files.readString(log);
                if (half == null && text.contains(RawConsumer.HALF)) {
                    half = Mark.of(child, samples / 2);
                }
                if (text.contains(RawConsumer.DONE)) {
                    return (half == null ? Mark.of(child, samples / 2) : half).finish(t0, child, samples, null);
                }
                child.checkAlive();
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the raw consumer did not finish in " + timeoutSeconds + " s");
                }
                Thread.sleep(20);
            }
        }
    }

    /** {@code writes}: set to the Kafka writes of the run. */
    private Reading measureAndPrintApp(PrintWriter out, Admin admin, String bootstrap, SizingTopics topics,
                                       String appId, long samples, Path work, Variant variant, Reading raw,
                                       long[] writesOut) throws Exception {
        Files.createDirectories(work);
        // the output topics are shared by every variant's run: count what this run added
        Map<String, Long> before = endOffsetsByTopic(admin, topics, appId);
        Reading app = measureApp(admin, bootstrap, topics, appId, samples, work, variant);
        Map<String, Long> written = endOffsetsByTopic(admin, topics, appId);
        written.replaceAll((topic, end) -> end - before.getOrDefault(topic, 0L));
        long writes = written.values().stream().mapToLong(Long::longValue).sum();
        writesOut[0] = writes;
        out.printf("%s: %s%s%n", variant.describe(appSettings), app.describe(samples), app.startUp(samples));
        out.printf("  its threads: %s%n", app.topThreads(6));
        String who = variant.decodeOnly() ? "floor" : "stream app";
        out.printf("%s Kafka writes: %,d records = %.3f per sample (%s)%n", who, writes,
                (double) writes / samples, perTopic(written, appId));
        out.printf("ratio from JVM start: the %s reads at %.0f %% of the raw consumer's rate and "
                + "spends %.1fx its CPU per sample%n", who, 100.0 * raw.seconds / app.seconds,
                app.cpuSeconds / raw.cpuSeconds);
        if (variant.decodeOnly()) {
            out.flush();
            return app;
        }
        double perSecond = 10_000.0 * samples / ((double) (nodes + idleNodes) * seconds);
        // no second-half ratio: the raw consumer reads the second half in about a second, too short to measure
        out.printf("projection at 1 Hz (second-half CPU): 1,000 nodes %.2f cores, %,.0f writes/s; 10,000 "
                        + "nodes %.2f cores, %,.0f writes/s (live, see docs/deploy.md)%n",
                perSecond / 10 * app.warmCpuMsPerSample() / 1000, perSecond / 10 * writes / samples,
                perSecond * app.warmCpuMsPerSample() / 1000, perSecond * writes / samples);
        out.flush();
        return app;
    }

    private Reading measureApp(Admin admin, String bootstrap, SizingTopics topics, String appId, long samples,
                               Path work, Variant variant) throws Exception {
        List<String> args = appArgs(bootstrap, topics, appId, work, variant);
        Set<String> inputs = Set.of(topics.portSamples(), topics.hostSamples(), topics.gpuSamples());
        Path log = work.resolve("streams.log");
        try (ChildJvm app = ChildJvm.startServerRole(heap, log, args, variant.jvmOptions())) {
            long t0 = System.nanoTime();
            long deadline = t0 + TimeUnit.SECONDS.toNanos(timeoutSeconds);
            Mark half = null;
            Mark running = null; // Kafka Streams has its tasks: start-up is over
            while (true) {
                app.checkAlive();
                if (running == null && Files.readString(log).contains(StreamsCommand.RUNNING)) {
                    running = Mark.of(app, 0);
                }
                long consumed = KafkaOffsets.committed(admin, appId).entrySet().stream()
                        .filter(e -> inputs.contains(e.getKey().topic())).mapToLong(Map.Entry::getValue).sum();
                if (half == null && consumed >= samples / 2) {
                    half = Mark.of(app, consumed);
                }
                if (consumed >= samples) {
                    return half.finish(t0, app, samples, running);
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the stream app did not catch up in " + timeoutSeconds + " s");
                }
                Thread.sleep(50);
            }
        }
    }

    /**
     * A figure per topic (records and transaction markers written, bytes), largest first, internal topics without
     * the app id.
     */
    static String perTopic(Map<String, Long> written, String appId) {
        return written.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .map(e -> e.getKey().replace(appId + "-", "") + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }

    static Map<String, Long> endOffsetsByTopic(Admin admin, SizingTopics topics, String appId)
            throws Exception {
        Set<String> written = admin.listTopics().names().get(30, TimeUnit.SECONDS).stream()
                .filter(t -> topics.writtenBy(appId, t)).collect(Collectors.toSet());
        return KafkaOffsets.endOffsets(admin, written).entrySet().stream()
                .collect(Collectors.groupingBy(e -> e.getKey().topic(), Collectors.summingLong(Map.Entry::getValue)));
    }

    /** {@code rdmamon bench raw-consumer}: reads topics to their end, decoding every record; the reference reader. */
    @Command(name = "raw-consumer", hidden = true, description = "Reads topics once with a plain KafkaConsumer.")
    public static final class RawConsumer implements Callable<Integer> {
        static final String DONE = "raw-consumer: done";
        static final String HALF = "raw-consumer: half";

        @Option(names = "--bootstrap-servers", required = true)
        String bootstrap;

        @Option(names = "--topics", required = true, split = ",")
        List<String> topics;

        @Override
        public Integer call() throws Exception {
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                    ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class))) {
                List<TopicPartition> partitions = new ArrayList<>();
                topics.forEach(t -> consumer.partitionsFor(t).forEach(p -> partitions.add(
                        new TopicPartition(t, p.partition()))));
                consumer.assign(partitions);
                consumer.seekToBeginning(partitions);
                Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
                long total = end.values().stream().mapToLong(Long::longValue).sum();
                long records = 0;
                long rejected = 0;
                boolean halfSaid = false;
                while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                        RecordParser<?> parser = r.topic().equals(topics.get(0)) ? RecordParser.PORT_SAMPLE
                                : RecordParser.HOST_SAMPLE;
                        rejected += parser.parse(r.value(), r.timestamp()).ok() ? 0 : 1;
                        records++;
                    }
                    if (!halfSaid && records >= total / 2) {
                        System.out.println(HALF);
                        System.out.flush();
                        halfSaid = true;
                    }
                }
                System.out.println("raw-consumer: " + records + " records, " + rejected + " rejected");
                System.out.println(DONE);
                System.out.flush();
                // stay alive so the parent reads this process's CPU from /proc
                Thread.sleep(60_000);
            }
            return 0;
        }
    }
}
