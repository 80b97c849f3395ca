package io.rdmamon.streams;

import io.rdmamon.jobs.JobAssignments;
import io.rdmamon.model.Alert;
import io.rdmamon.model.JobBandwidth;
import io.rdmamon.model.JobRecord;
import io.rdmamon.support.LogFiles;
import io.rdmamon.support.Processes;
import io.rdmamon.testing.SharedKafka;
import io.rdmamon.testing.TrainingTraffic;
import io.rdmamon.testing.TrainingTraffic.Event;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Exactly-once across a crash: {@code rdmamon streams} in a process of its own is killed with SIGKILL (no close, no
 * flush, no commit) in the middle of a backlog, and a new process on the same state directory finishes it. Read with
 * read_committed, as every consumer of the outputs should, each incident has one firing and at most one resolved
 * record, and each job-bandwidth window appears once.
 */
class StreamsAppKillTest {
    private static final long T0 = StreamsAppTest.T0;

    @TempDir
    Path work;

    private final List<AutoCloseable> open = new ArrayList<>();
    private final List<Process> apps = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        apps.forEach(p -> Processes.stop(p, Duration.ofSeconds(20)));
        for (int i = open.size() - 1; i >= 0; i--) { // the feed before the producer it sends with
            open.get(i).close();
        }
        printAppLogs();
    }

    /**
     * The apps' logs live in the test's temporary folder, which goes with the test: their ends go to the test's output
     * (target/surefire-reports/...-output.txt), so that a failure on a CI machine can be read afterwards.
     */
    private void printAppLogs() throws IOException {
        try (var logs = Files.list(work)) {
            for (Path log : logs.filter(f -> f.toString().endsWith(".log")).sorted().toList()) {
                System.out.println("--- " + log.getFileName() + ", last lines:");
                LogFiles.lastLines(log, 40).forEach(System.out::println);
            }
        }
    }

    @Test
    void shouldPublishEachIncidentAndWindowOnceWhenKilledMidBacklog() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String appId = "rdmamon-kill-" + suffix;
        Map<String, Object> settings = StreamsAppTest.settings(suffix, appId);
        StreamsAppConfig.TopicNames topics = new StreamsAppConfig(settings).topics();

        // 16 nodes x 4 NICs for 330 s: enough samples that the kill lands while the backlog is being worked through
        TrainingTraffic sim = new TrainingTraffic();
        long linkDown = T0 + 100_000;
        long hang = T0 + 200_000;
        List<String> nodes = IntStream.rangeClosed(1, 16).mapToObj(i -> "n" + i).toList();
        TrainingTraffic.Job job = sim.job("uid-kill", nodes, List.of("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"))
                .trains(T0 + 10_000, Long.MAX_VALUE).pause(hang, hang + 60_000);
        sim.record(job, JobRecord.RUNNING, T0).tweak(s -> s.node().equals("n2") && s.device().equals("mlx5_1")
                && s.ts() >= linkDown && s.ts() < linkDown + 10_000 ? StreamsAppTest.down(s) : s);
        List<Event> events = sim.run(T0, T0 + 330_000);

        KafkaProducer<String, byte[]> producer = StreamsAppTest.producer();
        open.add(producer);
        StreamsAppTest.Outputs out = new StreamsAppTest.Outputs(topics);
        open.add(out);

        Process first = start(settings, "first");
        // the job first, until the hold changes it makes went through their repartition topic to the sample tasks
        // (a sample processed before that would find no job), then every sample as one backlog
        StreamsAppTest.produce(producer, topics, events.stream().filter(e -> e.job() != null).toList());
        await().atMost(Duration.ofSeconds(90)).until(() -> SharedKafka.committed(SharedKafka.bootstrapServers(),
                appId, appId + "-" + JobAssignments.REPARTITION + "-repartition") > 0);
        List<Event> samples = events.stream().filter(e -> e.job() == null).toList();
        long total = samples.size();
        // A quarter as a backlog, the rest fed while the app runs, its last part only after the kill: the kill lands
        // while the app is working through arriving samples, and inputs are still unconsumed at the kill by
        // construction, however fast the app has become (it used to finish a whole backlog between two polls).
        int backlog = samples.size() / 4;
        StreamsAppTest.produce(producer, topics, samples.subList(0, backlog));
        PacedFeed feed = new PacedFeed(producer, topics, samples.subList(backlog, samples.size()));
        open.add(feed);

        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(20)).until(() ->
                consumed(appId, topics) >= total * 2 / 5);
        assertThat(feed.finished()).as("samples still arriving at the kill").isFalse();
        first.destroyForcibly().waitFor(); // SIGKILL
        long consumedAtKill = consumed(appId, topics);
        assertThat(consumedAtKill).as("killed mid-stream").isGreaterThan(backlog).isLessThan(total);
        feed.releaseTail();

        start(settings, "first"); // the same state directory, as a restarted pod with its volume
        await().atMost(Duration.ofSeconds(120)).until(() -> out.poll().alerts.stream()
                .anyMatch(a -> a.type().equals(Alert.STALLED_SYNC) && a.status().equals(Alert.RESOLVED)));
        await().atMost(Duration.ofSeconds(60)).alias("bandwidth windows up to T0 + 300 s").until(() -> out.poll()
                .bandwidth.stream().anyMatch(b -> b.windowStart() >= T0 + 300_000));
        out.poll();

        Map<String, Long> perIncidentAndStatus = out.alerts.stream()
                .collect(Collectors.groupingBy(a -> a.type() + " " + a.status() + " " + a.id(), Collectors.counting()));
        assertThat(perIncidentAndStatus.values()).as("no alert twice: %s", out.alerts).containsOnly(1L);
        assertThat(out.alerts).extracting(a -> a.type() + " " + a.status()).containsExactlyInAnyOrder(
                "LINK_DOWN firing", "LINK_DOWN resolved", "STALLED_SYNC firing", "STALLED_SYNC resolved");
        List<Long> windows = out.bandwidth.stream().map(JobBandwidth::windowStart).sorted().toList();
        assertThat(windows).as("no window twice").doesNotHaveDuplicates();
        for (int i = 1; i < windows.size(); i++) {
            assertThat(windows.get(i) - windows.get(i - 1)).as("no window lost").isEqualTo(10_000L);
        }
    }

    /**
     * Sends samples in time order at about {@link #PER_SECOND} a second on a thread of its own, holding its last
     * {@link #TAIL} back until {@link #releaseTail()}.
     */
    private static final class PacedFeed implements AutoCloseable {
        static final int PER_SECOND = 2_000;
        static final int TAIL = 500;
        private final CountDownLatch tailReleased = new CountDownLatch(1);
        private final Thread thread;
        private volatile boolean finished;

        PacedFeed(KafkaProducer<String, byte[]> producer, StreamsAppConfig.TopicNames topics, List<Event> samples) {
            int head = samples.size() - TAIL;
            thread = new Thread(() -> {
                try {
                    int chunk = PER_SECOND / 20;
                    for (int from = 0; from < head; from += chunk) {
                        StreamsAppTest.produce(producer, topics, samples.subList(from, Math.min(head, from + chunk)));
                        Thread.sleep(50);
                    }
                    tailReleased.await();
                    StreamsAppTest.produce(producer, topics, samples.subList(head, samples.size()));
                    finished = true;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "paced-feed");
            thread.setDaemon(true);
            thread.start();
        }

        boolean finished() {
            return finished;
        }

        void releaseTail() throws InterruptedException {
            tailReleased.countDown();
            thread.join(Duration.ofSeconds(60).toMillis());
            assertThat(finished).as("every sample sent").isTrue();
        }

        @Override
        public void close() throws InterruptedException {
            thread.interrupt();
            thread.join(10_000);
        }
    }

    private long consumed(String appId, StreamsAppConfig.TopicNames topics) {
        return SharedKafka.committed(SharedKafka.bootstrapServers(), appId, topics.portSamples())
                + SharedKafka.committed(SharedKafka.bootstrapServers(), appId, topics.hostSamples());
    }

    /** {@code rdmamon streams} in a JVM of its own, settings as {@code --set}, output in a log under the test dir. */
    private Process start(Map<String, Object> settings, String instance) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-cp", System.getProperty("java.class.path"), "io.rdmamon.cli.Main", "streams",
                "--state-dir", work.resolve("state-" + instance).toString(), "--metrics-port", "-1"));
        settings.forEach((key, value) -> command.addAll(List.of("--set", key + "=" + value)));
        Path log = work.resolve(instance + "-" + apps.size() + ".log");
        Files.createDirectories(work);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        apps.add(process);
        return process;
    }
}
