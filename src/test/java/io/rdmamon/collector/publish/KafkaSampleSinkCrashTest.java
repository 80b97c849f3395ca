package io.rdmamon.collector.publish;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.support.Processes;
import io.rdmamon.testing.SharedKafka;
import io.rdmamon.testing.TopicContent;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static io.rdmamon.collector.publish.CrashingCollector.passOf;
import static io.rdmamon.collector.publish.KafkaSampleSinkTest.settings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * Crashes: a collector killed with SIGKILL (its own JVM, a real sink, a real broker) during an outage or under load,
 * a segment torn by a power loss, a spill volume that fills up. Each counts the records per port against what was
 * sampled: only the last flush interval before a kill may be missing, everything else arrives after the restart, in
 * order, and a record sent twice is the same (key, ts, value).
 */
class KafkaSampleSinkCrashTest {
    private static final int PORTS = 16;
    /** The default flush interval, plus what a starved flush thread on a loaded 2-core machine may add. */
    private static final long MAY_LOSE_MS = PublishConfig.DEFAULT_FLUSH_INTERVAL_MS + 1_000;
    private static final int SECOND_RUN_FIRST_PASS = 1_000_000;
    private static final int SECOND_RUN_PASSES = 5;

    private static RestartableCluster cluster;

    @TempDir
    Path spillDir;

    @BeforeAll
    static void startCluster() {
        cluster = RestartableCluster.start();
    }

    @AfterAll
    static void stopCluster() throws Exception {
        cluster.close();
    }

    @Test
    void shouldReplayAllButTheLastFlushIntervalWhenKilledDuringAnOutage() throws Exception {
        String topic = SharedKafka.uniqueTopic("crash-outage");
        SharedKafka.createTopics(cluster.bootstrapServers(), 4, topic);
        Killed killed;
        try (Child first = Child.start(topic, spillDir, 100, 0, null)) {
            first.awaitPasses(10);
            cluster.stopBroker();
            Thread.sleep(5_000);
            killed = first.kill();
        }
        cluster.startBroker();
        runToCompletion(topic);

        assertOnlyTheLastFlushIntervalLost(topic, killed, 30); // 10 passes before the outage, 20 or more during it
    }

    @Test
    void shouldReplayAllButTheLastFlushIntervalWhenKilledUnderLoad() throws Exception {
        String topic = SharedKafka.uniqueTopic("crash-load");
        SharedKafka.createTopics(cluster.bootstrapServers(), 4, topic);
        Killed killed;
        try (Child first = Child.start(topic, spillDir, 20, 0, null)) { // 800 records/s
            first.awaitPasses(100);
            Thread.sleep(MAY_LOSE_MS + 1_000); // so that at least 100 passes must have arrived, however slow the machine
            killed = first.kill();
        }
        runToCompletion(topic);

        assertOnlyTheLastFlushIntervalLost(topic, killed, 100);
    }

    @Test
    void shouldSkipATornLastRecordAndDeliverTheRestWhenASegmentWasCutShort() throws Exception {
        String topic = SharedKafka.uniqueTopic("crash-torn");
        SharedKafka.createTopics(cluster.bootstrapServers(), 4, topic);
        Map<String, Object> settings = settings(cluster.bootstrapServers(), spillDir);
        settings.put(PublishConfig.CLOSE_TIMEOUT_MS_CONFIG, 200L);
        settings.put("kafka.max.block.ms", "2000");
        int passes = 50;
        cluster.stopBroker();
        try (KafkaSampleSink sink = new KafkaSampleSink(new PublishConfig(settings), new SimpleMeterRegistry())) {
            for (int pass = 0; pass < passes; pass++) {
                publishPass(sink, topic, pass, 4);
            }
        }
        Path newest;
        try (Stream<Path> files = Files.list(spillDir)) {
            newest = files.filter(p -> p.toString().endsWith(SpillSegment.SUFFIX)).max(Path::compareTo).orElseThrow();
        }
        try (FileChannel channel = FileChannel.open(newest, StandardOpenOption.WRITE)) {
            channel.truncate(channel.size() - 10); // a power loss in the middle of the last record
        }

        cluster.startBroker();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (KafkaSampleSink sink = new KafkaSampleSink(new PublishConfig(settings), registry)) {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> registry.get(PublishMetrics.BUFFERED_RECORDS).gauge().value() == 0);
            assertThat(registry.get(PublishMetrics.SPILL_DAMAGED).counter().count()).isEqualTo(1);
        }

        Map<String, List<Integer>> byKey = passesByKey(topic);
        for (int port = 0; port < 4; port++) {
            int last = port == 3 ? passes - 1 : passes; // the torn record: port 3 of the last pass
            assertThat(byKey.get(CrashingCollector.key(port))).as("port %d", port)
                    .containsExactlyElementsOf(IntStream.range(0, last).boxed().toList());
        }
    }

    @Test
    void shouldGoOnInMemoryAndDeliverEverythingWhenTheSpillVolumeIsFull() throws Exception {
        Path volume = spillDir.resolve("volume");
        Files.createDirectories(volume);
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=128k", "tmpfs", volume.toString())
                .redirectErrorStream(true).start();
        assumeThat(mount.waitFor(10, TimeUnit.SECONDS) && mount.exitValue() == 0)
                .as("mounting a 128 KiB tmpfs needs root").isTrue();
        try {
            String topic = SharedKafka.uniqueTopic("crash-full");
            SharedKafka.createTopics(cluster.bootstrapServers(), 4, topic);
            Map<String, Object> settings = settings(cluster.bootstrapServers(), volume.resolve("spill"));
            settings.put("kafka.max.block.ms", "2000");
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            int passes = 40; // 40 x 16 records of ~530 bytes: 340 KB, the volume holds 128 KiB
            cluster.stopBroker();
            try (KafkaSampleSink sink = new KafkaSampleSink(new PublishConfig(settings), registry)) {
                for (int pass = 0; pass < passes; pass++) {
                    publishPass(sink, topic, pass, PORTS);
                }
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> registry.get(PublishMetrics.SPILL_DEGRADED).gauge().value() == 1);
                assertThat(registry.get(PublishMetrics.SPILL_ERRORS).counters()).isNotEmpty();
                cluster.startBroker();
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> registry.get(PublishMetrics.BUFFERED_RECORDS).gauge().value() == 0);
            }

            assertThat(registry.get(PublishMetrics.DROPPED).counter().count()).isZero();
            Map<String, List<Integer>> byKey = passesByKey(topic);
            for (int port = 0; port < PORTS; port++) {
                assertThat(byKey.get(CrashingCollector.key(port))).as("port %d: every pass once, in order", port)
                        .containsExactlyElementsOf(IntStream.range(0, passes).boxed().toList());
            }
        } finally {
            new ProcessBuilder("umount", volume.toString()).start().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static void publishPass(KafkaSampleSink sink, String topic, int pass, int ports) {
        for (int port = 0; port < ports; port++) {
            sink.publish(topic, CrashingCollector.key(port), CrashingCollector.T0 + pass, CrashingCollector.value(port,
                    pass));
        }
    }

    /** A second collector on the same spill directory: sends what the first left, then a few passes of its own. */
    private void runToCompletion(String topic) throws Exception {
        try (Child second = Child.start(topic, spillDir, 100, SECOND_RUN_FIRST_PASS, SECOND_RUN_PASSES)) {
            second.awaitExit(Duration.ofSeconds(120));
        }
    }

    /**
     * Per port: every pass sampled more than {@link #MAY_LOSE_MS} before the kill arrived, at most once after dropping
     * exact duplicates by (key, ts), in order; then the second run's passes.
     */
    private void assertOnlyTheLastFlushIntervalLost(String topic, Killed killed, int minimumReplayed) {
        int mustHave = killed.passesBefore(killed.atMs() - MAY_LOSE_MS);
        assertThat(mustHave).as("passes sampled before the last flush interval").isGreaterThan(minimumReplayed);
        List<ConsumerRecord<String, byte[]>> records = TopicContent.readAll(cluster.bootstrapServers(), topic);
        Map<String, List<Integer>> firstSeen = new HashMap<>();
        Map<String, Map<Long, String>> seen = new HashMap<>();
        int duplicates = 0;
        for (ConsumerRecord<String, byte[]> r : records) {
            String value = new String(r.value(), StandardCharsets.UTF_8);
            String before = seen.computeIfAbsent(r.key(), k -> new HashMap<>()).putIfAbsent(r.timestamp(), value);
            if (before != null) {
                assertThat(value).as("a record sent twice is the same record").isEqualTo(before);
                duplicates++;
                continue;
            }
            firstSeen.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(passOf(value));
        }
        int lost = 0;
        for (int port = 0; port < PORTS; port++) {
            List<Integer> passes = firstSeen.get(CrashingCollector.key(port));
            assertThat(passes).as("port %d in order", port).isSorted();
            List<Integer> firstRun = passes.stream().filter(p -> p < SECOND_RUN_FIRST_PASS).toList();
            assertThat(firstRun).as("port %d: everything sampled up to %d s before the kill", port, MAY_LOSE_MS / 1000)
                    .containsAll(IntStream.range(0, mustHave).boxed().toList())
                    .allMatch(p -> p <= killed.lastPass() + 1);
            assertThat(passes.subList(firstRun.size(), passes.size())).as("port %d: the second run", port)
                    .containsExactlyElementsOf(IntStream.range(SECOND_RUN_FIRST_PASS,
                            SECOND_RUN_FIRST_PASS + SECOND_RUN_PASSES).boxed().toList());
            lost += killed.lastPass() + 1 - firstRun.size();
        }
        System.out.printf("killed after pass %d: %d records of the first run lost (all in the last %d ms), %d sent "
                + "twice%n", killed.lastPass(), Math.max(0, lost), MAY_LOSE_MS, duplicates);
    }

    private static Map<String, List<Integer>> passesByKey(String topic) {
        Map<String, List<Integer>> byKey = new HashMap<>();
        TopicContent.valuesByKey(TopicContent.readAll(cluster.bootstrapServers(), topic))
                .forEach((key, values) -> byKey.put(key, values.stream().map(CrashingCollector::passOf).toList()));
        return byKey;
    }


    /** What the killed collector had sampled: pass number to the time (ms) it said so, and when it was killed. */
    record Killed(Map<Integer, Long> sampledAtMs, long atMs) {
        int lastPass() {
            return sampledAtMs.keySet().stream().mapToInt(Integer::intValue).max().orElse(-1);
        }

        /** Passes 0..n-1 all sampled before {@code ms}: returns n. */
        int passesBefore(long ms) {
            int n = 0;
            while (sampledAtMs.getOrDefault(n, Long.MAX_VALUE) < ms) {
                n++;
            }
            return n;
        }
    }

    /** A {@link CrashingCollector} child JVM, its SAMPLED lines read as they come. */
    private static final class Child implements AutoCloseable {
        private final Process process;
        private final Map<Integer, Long> sampled = new ConcurrentHashMap<>();
        private final List<String> output = Collections.synchronizedList(new ArrayList<>());

        private Child(Process process) {
            this.process = process;
            Thread reader = new Thread(this::read, "child-output");
            reader.setDaemon(true);
            reader.start();
        }

        static Child start(String topic, Path spill, long intervalMs, int firstPass, Integer passes)
                throws IOException {
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                            .toString(), "-Xmx128m", "-cp", System.getProperty("java.class.path"),
                    CrashingCollector.class.getName(), cluster.bootstrapServers(), spill.toString(), topic,
                    Integer.toString(PORTS), Long.toString(intervalMs), Integer.toString(firstPass)));
            if (passes != null) {
                command.add(passes.toString());
            }
            return new Child(new ProcessBuilder(command).redirectErrorStream(true).start());
        }

        private void read() {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    if (line.startsWith(CrashingCollector.SAMPLED)) {
                        sampled.put(Integer.parseInt(line.substring(CrashingCollector.SAMPLED.length()).trim()),
                                System.currentTimeMillis());
                    } else {
                        output.add(line);
                    }
                }
            } catch (IOException e) {
                // the child is gone
            }
        }

        void awaitPasses(int n) {
            await().atMost(Duration.ofSeconds(60)).until(() -> sampled.size() >= n || !process.isAlive());
            assertThat(process.isAlive()).as("collector child running; its output:%n%s", tail()).isTrue();
        }

        /** SIGKILL: no shutdown hook, no close, no flush. */
        Killed kill() throws InterruptedException {
            long at = System.currentTimeMillis();
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
            Thread.sleep(100); // the last SAMPLED lines still in the pipe
            return new Killed(Map.copyOf(sampled), at);
        }

        void awaitExit(Duration timeout) throws InterruptedException {
            assertThat(process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) && process.exitValue() == 0)
                    .as("second collector finished cleanly; its output:%n%s", tail()).isTrue();
        }

        private String tail() {
            synchronized (output) {
                return String.join("\n", output.subList(Math.max(0, output.size() - 40), output.size()));
            }
        }

        @Override
        public void close() {
            Processes.stop(process, Duration.ofSeconds(10));
        }
    }
}
