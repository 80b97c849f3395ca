package io.rdmamon.bench;

import io.rdmamon.config.Durations;
import io.rdmamon.model.Alert;
import io.rdmamon.model.JobBandwidth;
import io.rdmamon.model.Json;
import io.rdmamon.streams.StreamsAppConfig;
import io.rdmamon.support.EmbeddedKafkaBroker;
import io.rdmamon.support.FileTrees;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * {@code rdmamon bench failover}: the blind spot after a stream app instance dies. A live cluster (every job training,
 * samples at 1 Hz stamped with the clock) feeds two {@code rdmamon streams} processes of one application; a third may
 * join part way. Then instance a is killed with SIGKILL and not restarted, and every job's collectives hang a few
 * seconds later. Printed: how long after the kill each job's next window came (the dead instance's jobs wait for the
 * group to give up on it), how long after the hang each job's STALLED_SYNC came, and whether every window and
 * incident came exactly once.
 */
@Command(name = "failover", mixinStandardHelpOptions = true,
        description = "Kill one of two stream app instances mid-stream (SIGKILL, not restarted) and print the blind "
                + "spot: the time from the kill until every job has a new window, and until the STALLED_SYNC of a "
                + "hang that starts just after it.")
public final class FailoverBenchmark implements Callable<Integer> {
    /** A window or an alert as read (read_committed), with when it became visible. */
    public record Seen<T>(T value, long arrivedAtMs) {
    }

    /** What one run saw: the outputs and the moments that matter (wall clock, ms). */
    /** Windows by job name; the jobs are named as in their records. */
    public record Result(long killAtMs, long hangAtMs, long referenceAtMs, List<String> jobs,
                         Map<String, List<Seen<JobBandwidth>>> windows, List<Seen<Alert>> alerts,
                         Map<String, Integer> sharedBeforeJoin, Map<String, Integer> samplePartitionsByInstance) {
        /** The longest time any job waited after {@code fromMs} for its next window. */
        public long nextWindowAfter(long fromMs) {
            long worst = 0;
            for (String job : jobs) {
                OptionalLong next = windows.getOrDefault(job, List.of()).stream().mapToLong(Seen::arrivedAtMs)
                        .filter(t -> t > fromMs).min();
                if (next.isEmpty()) {
                    return Long.MAX_VALUE;
                }
                worst = Math.max(worst, next.getAsLong() - fromMs);
            }
            return worst;
        }

        /** The kill to every job's next window: the blind spot. */
        public long blindSpotMs() {
            return nextWindowAfter(killAtMs);
        }

        /** The same, from a moment before the kill: what a window's cadence alone costs. */
        public long cadenceMs() {
            return nextWindowAfter(referenceAtMs);
        }

        /** From the hang to each job's STALLED_SYNC firing becoming visible (Long.MAX_VALUE: none). */
        public List<Long> stallLatenciesMs() {
            return jobs.stream().map(uid -> alerts.stream().filter(a -> a.value().type().equals(Alert.STALLED_SYNC)
                            && a.value().status().equals(Alert.FIRING) && uid.equals(a.value().job()))
                    .mapToLong(a -> a.arrivedAtMs() - hangAtMs).min().orElse(Long.MAX_VALUE)).toList();
        }
    }

    @Option(names = "--nodes", defaultValue = "16", description = "GPU nodes (default ${DEFAULT-VALUE}).")
    int nodes = 16;

    @Option(names = "--devices", defaultValue = "2", description = "RDMA NICs per node (default ${DEFAULT-VALUE}).")
    int devices = 2;

    @Option(names = "--nodes-per-job", defaultValue = "2", description = "Nodes per training job (default "
            + "${DEFAULT-VALUE}).")
    int nodesPerJob = 2;

    @Option(names = "--partitions", defaultValue = "6", description = "Partitions of every topic (default "
            + "${DEFAULT-VALUE}).")
    int partitions = 6;

    @Option(names = "--before", defaultValue = "60s", converter = Durations.Converter.class,
            description = "Live time from the instances' start to the kill; every job must have had windows by then "
                    + "(default ${DEFAULT-VALUE}).")
    Duration before = Duration.ofSeconds(60);

    @Option(names = "--join", converter = Durations.Converter.class, description = "Start a third instance this "
            + "long before the kill (default: none); it must be less than --before.")
    Duration join;

    @Option(names = "--hang-after", defaultValue = "3s", converter = Durations.Converter.class,
            description = "Every job hangs this long after the kill (default ${DEFAULT-VALUE}).")
    Duration hangAfter = Duration.ofSeconds(3);

    @Option(names = "--after", defaultValue = "40s", converter = Durations.Converter.class,
            description = "Live time after the kill (default ${DEFAULT-VALUE}).")
    Duration after = Duration.ofSeconds(40);

    @Option(names = "--kill", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Kill instance a (default ${DEFAULT-VALUE}); --no-kill gives the same figures without a "
                    + "crash, to compare.")
    boolean kill = true;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "A setting of every instance (repeatable), "
            + "e.g. streams.session.timeout.ms=45000 for Kafka's default.")
    List<String> settings = new ArrayList<>();

    @Option(names = "--heap", defaultValue = "384m", description = "Max heap of each instance (default "
            + "${DEFAULT-VALUE}).")
    String heap = "384m";

    @Option(names = "--bootstrap-servers", description = "An existing broker; default: an in-process one.")
    String bootstrapServers;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (join != null && join.compareTo(before) >= 0) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--join must be less than --before");
        }
        PrintWriter out = spec.commandLine().getOut();
        Path work = Files.createTempDirectory("rdmamon-failover");
        List<String> problems;
        try (EmbeddedKafkaBroker broker = bootstrapServers == null
                ? EmbeddedKafkaBroker.start(work.resolve("kafka"), 0) : null) {
            String bootstrap = broker == null ? bootstrapServers : broker.bootstrapServers();
            out.printf("failover: 2 stream app instances%s, %d nodes x %d NICs, jobs of %d nodes, %d partitions; %s "
                            + "%d s after their start, every job hung %d s after that%n", join == null ? ""
                            : " (a third joins " + join.toSeconds() + " s before the kill)", nodes, devices,
                    nodesPerJob, partitions, kill ? "instance a killed (SIGKILL, not restarted)" : "no kill (--no-kill)",
                    before.toSeconds(), hangAfter.toSeconds());
            out.flush();
            Result r = run(bootstrap, work);
            print(out, r);
            problems = problems(r);
        } catch (Exception e) {
            out.println("the instances' logs are kept in " + work);
            throw e;
        }
        problems.forEach(p -> out.println("PROBLEM: " + p));
        if (problems.isEmpty()) {
            out.println("exactly once: every job's windows each once and none missing; one STALLED_SYNC per job, no "
                    + "other alert");
            FileTrees.deleteQuietly(work);
        } else {
            out.println("the instances' logs are kept in " + work);
        }
        out.flush();
        return problems.isEmpty() ? 0 : 1;
    }

    static void print(PrintWriter out, Result r) {
        if (!r.sharedBeforeJoin().isEmpty()) {
            out.printf("sample partitions held before the third instance joined: %s%n", r.sharedBeforeJoin());
        }
        out.printf("sample partitions held before the kill: %s%n", r.samplePartitionsByInstance());
        out.printf("blind spot: every job's next window came at most %.1f s after the kill (from a moment before it, "
                + "the windows' cadence alone: %.1f s)%n", r.blindSpotMs() / 1e3, r.cadenceMs() / 1e3);
        List<Long> stalls = r.stallLatenciesMs().stream().sorted().toList();
        out.printf("STALLED_SYNC of the %d jobs, from the hang: median %.1f s, at most %.1f s%n", stalls.size(),
                stalls.get(stalls.size() / 2) / 1e3, stalls.get(stalls.size() - 1) / 1e3);
        out.flush();
    }

    /** What breaks exactly-once or loses something: a window twice or missing, an incident missing or twice. */
    public static List<String> problems(Result r) {
        List<String> problems = new ArrayList<>();
        for (String uid : r.jobs()) {
            List<Long> starts = r.windows().getOrDefault(uid, List.of()).stream()
                    .map(s -> s.value().windowStart()).sorted().toList();
            if (starts.isEmpty()) {
                problems.add(uid + ": no window");
                continue;
            }
            for (int i = 1; i < starts.size(); i++) {
                long step = starts.get(i) - starts.get(i - 1);
                if (step == 0) {
                    problems.add(uid + ": window " + starts.get(i) + " twice");
                } else if (step != StreamsAppConfig.DEFAULT_WINDOW_SIZE) {
                    problems.add(uid + ": windows missing between " + starts.get(i - 1) + " and " + starts.get(i));
                }
            }
            if (starts.get(starts.size() - 1) < r.hangAtMs()) {
                problems.add(uid + ": no window after the hang");
            }
        }
        Map<String, Integer> incidents = new TreeMap<>();
        r.alerts().forEach(a -> incidents.merge(a.value().type() + " " + a.value().status() + " " + a.value().id(), 1,
                Integer::sum));
        incidents.forEach((incident, times) -> {
            if (times > 1) {
                problems.add(incident + " " + times + " times");
            }
            if (!incident.startsWith(Alert.STALLED_SYNC + " " + Alert.FIRING)) {
                problems.add("unexpected alert: " + incident);
            }
        });
        if (r.stallLatenciesMs().contains(Long.MAX_VALUE)) {
            problems.add("a job's STALLED_SYNC is missing");
        }
        return problems;
    }

    /** One run on the broker at {@code bootstrap}, files under {@code work}. */
    public Result run(String bootstrap, Path work) throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        SizingTopics topics = SizingTopics.forRun(run);
        String appId = "failover-" + run;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            topics.createInputs(admin, partitions);
            long startMs = System.currentTimeMillis() / 1000 * 1000;
            long killAt = startMs + before.toMillis();
            long hangAt = killAt + hangAfter.toMillis();
            List<ChildJvm> instances = new ArrayList<>();
            ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor();
            try (SizingLoad load = SizingLoad.create(nodes, devices, nodesPerJob, startMs, hangAt, topics, bootstrap);
                 Outputs outputs = new Outputs(bootstrap, topics)) {
                clock.scheduleWithFixedDelay(() -> load.sendUntil(System.currentTimeMillis()), 0, 50,
                        TimeUnit.MILLISECONDS);
                List<String> jobs = load.jobNames();
                instances.add(start(work, bootstrap, appId, topics, "a"));
                instances.add(start(work, bootstrap, appId, topics, "b"));
                Map<String, Integer> shared = Map.of();
                if (join != null) {
                    sleepUntil(instances, killAt - join.toMillis());
                    shared = samplePartitions(admin, appId, topics);
                    instances.add(start(work, bootstrap, appId, topics, "c"));
                }
                sleepUntil(instances, killAt);
                List<String> cold = jobs.stream().filter(uid -> outputs.windows(uid).size() < 2).toList();
                if (!cold.isEmpty()) {
                    throw new IllegalStateException(cold.size() + " jobs had fewer than two windows at the kill, "
                            + before.toSeconds() + " s after the start: give the instances more time (--before)");
                }
                Map<String, Integer> held = samplePartitions(admin, appId, topics);
                long killedAt = System.currentTimeMillis();
                if (kill) {
                    instances.get(0).kill();
                }
                List<ChildJvm> alive = kill ? instances.subList(1, instances.size()) : instances;
                sleepUntil(alive, killedAt + after.toMillis());
                await(alive, Duration.ofSeconds(60), "STALLED_SYNC of every job", () -> jobs.stream().allMatch(
                        uid -> outputs.alerts().stream().anyMatch(a -> uid.equals(a.value().job())
                                && a.value().type().equals(Alert.STALLED_SYNC))));
                sleepUntil(alive, System.currentTimeMillis() + 2_000); // anything written twice would show by now
                Map<String, List<Seen<JobBandwidth>>> windows = new TreeMap<>();
                jobs.forEach(uid -> windows.put(uid, outputs.windows(uid)));
                return new Result(killedAt, hangAt, killedAt - 15_000, jobs, windows, outputs.alerts(), shared,
                        held);
            } finally {
                clock.shutdownNow();
                instances.forEach(ChildJvm::close);
            }
        }
    }

    private ChildJvm start(Path work, String bootstrap, String appId, SizingTopics topics, String name)
            throws IOException {
        List<String> args = new ArrayList<>(List.of("streams", "--bootstrap-servers", bootstrap, "--application-id",
                appId, "--state-dir", work.resolve("state-" + name).toString(), "--metrics-port", "-1",
                "--set", StreamsAppConfig.TOPICS_PARTITIONS_CONFIG + "=" + partitions,
                "--set", "kafka.client.id=" + appId + "-" + name));
        args.addAll(topics.streamsSettings());
        settings.forEach(setting -> args.addAll(List.of("--set", setting)));
        return ChildJvm.start(heap, work.resolve("streams-" + name + ".log"), args);
    }

    /** Sample partitions (port samples) each instance's consumer holds, by instance name. */
    private static Map<String, Integer> samplePartitions(Admin admin, String appId, SizingTopics topics)
            throws ExecutionException, InterruptedException {
        ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(appId)).all().get().get(appId);
        Map<String, Integer> held = new TreeMap<>();
        for (MemberDescription m : group.members()) {
            String instance = m.clientId().substring(appId.length() + 1, appId.length() + 2);
            long n = m.assignment().topicPartitions().stream()
                    .filter(tp -> tp.topic().equals(topics.portSamples())).count();
            held.merge(instance, (int) n, Integer::sum);
        }
        return held;
    }

    private static void sleepUntil(Collection<ChildJvm> instances, long wallMs) throws Exception {
        while (System.currentTimeMillis() < wallMs) {
            for (ChildJvm i : instances) {
                i.checkAlive();
            }
            Thread.sleep(Math.min(500, Math.max(1, wallMs - System.currentTimeMillis())));
        }
    }

    private static void await(Collection<ChildJvm> instances, Duration timeout, String what, BooleanSupplier done)
            throws Exception {
        long deadline = System.currentTimeMillis() + timeout.toMillis();
        while (!done.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("no " + what + " within " + timeout.toSeconds() + " s");
            }
            sleepUntil(instances, System.currentTimeMillis() + 200);
        }
    }

    /** The app's windows and alerts as a read_committed consumer sees them, read on a thread of its own. */
    private static final class Outputs implements AutoCloseable {
        private final KafkaConsumer<String, byte[]> consumer;
        private final SizingTopics topics;
        private final Map<String, List<Seen<JobBandwidth>>> windows = new TreeMap<>();
        private final List<Seen<Alert>> alerts = new ArrayList<>();
        private final Thread reader;
        private volatile boolean closed;

        Outputs(String bootstrap, SizingTopics topics) {
            this.topics = topics;
            consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                    ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false),
                    new StringDeserializer(), new ByteArrayDeserializer());
            reader = new Thread(this::readLoop, "failover-outputs");
            reader.setDaemon(true);
            reader.start();
        }

        private void readLoop() {
            while (!closed) {
                poll();
            }
        }

        private synchronized void poll() {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String topic : List.of(topics.jobBandwidth(), topics.alerts())) {
                consumer.partitionsFor(topic).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            }
            // the app creates its output topics at start: every partition is read once they exist
            if (partitions.isEmpty()) {
                sleep(100);
                return;
            }
            if (!consumer.assignment().containsAll(partitions)) {
                consumer.assign(partitions);
            }
            for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                long now = System.currentTimeMillis();
                if (r.topic().equals(topics.jobBandwidth())) {
                    JobBandwidth b = read(r.value(), JobBandwidth.class);
                    windows.computeIfAbsent(b.job(), u -> new ArrayList<>()).add(new Seen<>(b, now));
                } else {
                    alerts.add(new Seen<>(read(r.value(), Alert.class), now));
                }
            }
        }

        private static void sleep(long ms) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private static <T> T read(byte[] json, Class<T> type) {
            try {
                return Json.MAPPER.readValue(json, type);
            } catch (IOException e) {
                throw new IllegalStateException("the app wrote a record that is not a " + type.getSimpleName(), e);
            }
        }

        synchronized List<Seen<JobBandwidth>> windows(String uid) {
            return List.copyOf(windows.getOrDefault(uid, List.of()));
        }

        synchronized List<Seen<Alert>> alerts() {
            return List.copyOf(alerts);
        }

        @Override
        public void close() throws InterruptedException {
            closed = true;
            reader.join(5_000);
            synchronized (this) {
                consumer.close();
            }
        }
    }
}
