package io.rdmamon.jobs;

import io.rdmamon.access.AccessRefusedException;
import io.rdmamon.access.KafkaAccess;
import io.rdmamon.access.RoleAcls;
import io.rdmamon.config.ConfigLoader;
import io.rdmamon.config.ConfigOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code rdmamon jobs publish FILE|-}: job metadata for clusters without Kubernetes, for tests and the demo. Exit
 * status 0 when every line was published, 1 when some lines were rejected (the others are published), 2 when Kafka
 * did not take records or the file does not exist, 3 when Kafka turned the publisher away (wrong credentials, a missing
 * ACL: {@link AccessRefusedException}, one line naming the principal and the refusal).
 */
@Command(name = "publish", mixinStandardHelpOptions = true,
        description = {"Publish job records (JSON lines, the rdma.jobs contract) keyed by uid, timestamp updatedAt.",
                "Bad lines are reported with their line number and skipped."})
public final class JobsPublishCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE|-", description = "JSON lines file, or - for standard input.")
    String source;

    @Mixin
    ConfigOptions options;

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT[,...]", description = "Kafka brokers.")
    String bootstrapServers;

    @Option(names = "--topic", description = "Topic (default rdma.jobs).")
    String topic;

    @Override
    public Integer call() throws Exception {
        Map<String, Object> flags = new HashMap<>();
        flags.put(JobsPublishConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        flags.put(JobsPublishConfig.TOPIC_CONFIG, topic);
        JobsPublishConfig cfg = new JobsPublishConfig(ConfigLoader.load(JobsPublishConfig.CONFIG_DEF, options.file,
                System.getenv(), options.withNamedFlags(flags), JobsPublishConfig.KAFKA_PREFIX));
        PrintWriter err = spec.commandLine().getErr();
        if (!"-".equals(source) && !Files.isRegularFile(Path.of(source))) {
            err.println("rdmamon jobs publish: no such file: " + source);
            return 2;
        }
        Map<String, Object> props = producerProps(cfg);
        // as every role: one line that names the principal and what Kafka refused it, exit status 3
        KafkaAccess access = KafkaAccess.of(props, RoleAcls.jobsPublish(cfg.topic()));
        try (BufferedReader lines = open(source);
             Producer<String, byte[]> producer = new KafkaProducer<>(props, new StringSerializer(),
                     new ByteArraySerializer())) {
            JobLinePublisher.Outcome outcome = JobLinePublisher.publish(lines, producer, cfg.topic(), err);
            Optional<String> refused = outcome.firstError() == null ? Optional.empty()
                    : access.describe(outcome.firstError());
            err.println("published " + outcome.published() + " job record(s) to " + cfg.topic() + ", rejected "
                    + outcome.rejected() + " line(s)" + (outcome.failed() > 0 ? ", failed to send "
                    + outcome.failed() + (refused.isPresent() ? "" : ": " + outcome.firstFailure()) : ""));
            err.flush();
            if (refused.isPresent()) {
                throw new AccessRefusedException(refused.get());
            }
            return outcome.failed() > 0 ? 2 : outcome.rejected() > 0 ? 1 : 0;
        } catch (RuntimeException e) {
            throw AccessRefusedException.of(access, e);
        }
    }

    private static BufferedReader open(String source) throws java.io.IOException {
        if ("-".equals(source)) {
            return new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        }
        return Files.newBufferedReader(Path.of(source), StandardCharsets.UTF_8);
    }

    private static Map<String, Object> producerProps(JobsPublishConfig cfg) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cfg.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        props.putAll(cfg.kafkaOverrides());
        return props;
    }
}
