package io.rdmamon.cli;

import io.rdmamon.model.NodePartitioner;
import io.rdmamon.replay.InputKind;
import io.rdmamon.replay.RecordingPublisher;
import io.rdmamon.replay.ReplayTopics;
import io.rdmamon.replay.Replayer;
import io.rdmamon.scenario.ScenarioFiles;
import io.rdmamon.support.EmbeddedKafkaBroker;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code rdmamon testbed}: helpers for scripts that run rdmamon's roles against a real broker (scripts/containers-test):
 * an in-process broker, publishing a recorded scenario, reading a topic. Hidden: not a user command.
 */
@Command(name = "testbed", hidden = true, mixinStandardHelpOptions = true,
        description = "Script helpers: a broker, publishing recordings, reading a topic.",
        subcommands = {TestbedCommand.Broker.class, TestbedCommand.Publish.class, TestbedCommand.Consume.class,
                TestbedCommand.AwaitTopic.class})
public final class TestbedCommand {

    @Command(name = "broker", mixinStandardHelpOptions = true,
            description = "Start a single-node KRaft broker on 127.0.0.1 (EmbeddedKafkaBroker); print its bootstrap "
                    + "address; run until terminated.")
    static final class Broker implements Callable<Integer> {
        @Option(names = "--dir", required = true, description = "Log directory (empty or absent).")
        Path dir;

        @Option(names = "--port", defaultValue = "0", description = "Broker port (default: a free one).")
        int port;

        @Option(names = "--ready-file", description = "Write the bootstrap address here once the broker is up.")
        Path readyFile;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dir, port);
            CountDownLatch stopped = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                broker.close();
                stopped.countDown();
            }, "broker-shutdown"));
            PrintWriter out = spec.commandLine().getOut();
            out.println(broker.bootstrapServers());
            out.flush();
            if (readyFile != null) {
                Path tmp = readyFile.resolveSibling(readyFile.getFileName() + ".tmp");
                Files.writeString(tmp, broker.bootstrapServers() + "\n", StandardCharsets.UTF_8);
                Files.move(tmp, readyFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            }
            stopped.await();
            return 0;
        }
    }

    @Command(name = "publish", mixinStandardHelpOptions = true,
            description = "Publish a scenario folder (rdmamon simulate) to rdma.jobs, rdma.host-samples and "
                    + "rdma.port-samples with the producers' keys and timestamps.")
    static final class Publish implements Callable<Integer> {
        @Option(names = "--bootstrap-servers", required = true)
        String bootstrap;

        @Option(names = "--scenario", required = true, description = "Folder with samples.jsonl, jobs.jsonl and "
                + "optionally host-samples.jsonl.")
        Path scenario;

        @Option(names = "--end-at-now", description = "Shift every time field so that the recording's last record "
                + "is now (inside the live system's retention and windows).")
        boolean endAtNow;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            List<Replayer.Input> inputs = new ArrayList<>();
            inputs.add(new Replayer.Input(InputKind.JOBS, scenario.resolve("jobs.jsonl")));
            inputs.add(new Replayer.Input(InputKind.PORT_SAMPLES, scenario.resolve("samples.jsonl")));
            if (Files.isRegularFile(scenario.resolve("host-samples.jsonl"))) {
                inputs.add(new Replayer.Input(InputKind.HOST_SAMPLES, scenario.resolve("host-samples.jsonl")));
            }
            if (Files.isRegularFile(scenario.resolve(ScenarioFiles.GPU_SAMPLES))) {
                inputs.add(new Replayer.Input(InputKind.GPU_SAMPLES, scenario.resolve(ScenarioFiles.GPU_SAMPLES)));
            }
            long shift = endAtNow ? System.currentTimeMillis() - lastTimestamp(inputs) : 0;
            // samples partitioned by node, as the collectors do (job records by uid: the same formula on the key)
            Map<String, Object> props = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 20,
                    ProducerConfig.PARTITIONER_CLASS_CONFIG, NodePartitioner.class.getName());
            RecordingPublisher.Summary summary;
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
                    new StringSerializer())) {
                summary = RecordingPublisher.publish(inputs, ReplayTopics.DEFAULT, shift, producer);
            }
            spec.commandLine().getOut().printf("published %d records, %s .. %s (shifted by %d ms)%n",
                    summary.records(), Instant.ofEpochMilli(summary.firstTimestamp()),
                    Instant.ofEpochMilli(summary.lastTimestamp()), shift);
            spec.commandLine().getOut().flush();
            return summary.records() > 0 ? 0 : 1;
        }

        private static long lastTimestamp(List<Replayer.Input> inputs) throws Exception {
            long last = Long.MIN_VALUE;
            for (Replayer.Input input : inputs) {
                try (var lines = Files.lines(input.file(), StandardCharsets.UTF_8)) {
                    for (String line : (Iterable<String>) lines::iterator) {
                        if (!line.isBlank()) {
                            var node = io.rdmamon.model.Json.MAPPER.readTree(line)
                                    .get(input.kind().timestampField());
                            if (node != null && node.isIntegralNumber()) {
                                last = Math.max(last, node.asLong());
                            }
                        }
                    }
                }
            }
            if (last == Long.MIN_VALUE) {
                throw new IllegalArgumentException(inputs + ": no record with a timestamp");
            }
            return last;
        }
    }

    @Command(name = "consume", mixinStandardHelpOptions = true,
            description = "Read a topic from the beginning and print its values (JSON lines) until --min records "
                    + "were read (exit 0) or --timeout passed (exit 1).")
    static final class Consume implements Callable<Integer> {
        @Option(names = "--bootstrap-servers", required = true)
        String bootstrap;

        @Option(names = "--topic", required = true)
        String topic;

        @Option(names = "--min", defaultValue = "1", description = "Records to wait for (default ${DEFAULT-VALUE}).")
        int min;

        @Option(names = "--timeout", defaultValue = "PT60S", description = "ISO-8601 duration (default "
                + "${DEFAULT-VALUE}).")
        Duration timeout;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    ConsumerConfig.GROUP_ID_CONFIG, "testbed-" + UUID.randomUUID(),
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                    ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            PrintWriter out = spec.commandLine().getOut();
            long deadline = System.nanoTime() + timeout.toNanos();
            int read = 0;
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                    new StringDeserializer())) {
                consumer.subscribe(List.of(topic));
                while (read < min && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                        out.println(r.value());
                        read++;
                    }
                    out.flush();
                }
            }
            spec.commandLine().getErr().printf("read %d record(s) from %s (wanted %d)%n", read, topic, min);
            spec.commandLine().getErr().flush();
            return read >= min ? 0 : 1;
        }
    }

    @Command(name = "await-topic", mixinStandardHelpOptions = true,
            description = "Wait until a topic exists (exit 0) or --timeout passed (exit 1).")
    static final class AwaitTopic implements Callable<Integer> {
        @Option(names = "--bootstrap-servers", required = true)
        String bootstrap;

        @Option(names = "--topic", required = true)
        String topic;

        @Option(names = "--timeout", defaultValue = "PT120S", description = "ISO-8601 duration (default "
                + "${DEFAULT-VALUE}).")
        Duration timeout;

        @Override
        public Integer call() throws Exception {
            long deadline = System.nanoTime() + timeout.toNanos();
            try (Admin admin = Admin.create(Map.<String, Object>of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                    bootstrap))) {
                while (System.nanoTime() < deadline) {
                    if (admin.listTopics().names().get().contains(topic)) {
                        return 0;
                    }
                    Thread.sleep(500);
                }
            }
            System.err.println("no topic " + topic + " after " + timeout);
            return 1;
        }
    }
}
