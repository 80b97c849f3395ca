package io.rdmamon.streams;

import io.rdmamon.access.AccessRefusedException;
import io.rdmamon.access.KafkaAccess;
import io.rdmamon.support.KafkaOffsets;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Creates the app's input and output topics when they are missing ({@code streams.topics.create}): the job and node
 * topics compacted, the others with the broker's retention, the outputs stamped with the broker's append time. Internal topics are Kafka Streams' own business. Where the app
 * may not create topics, it logs the {@code kafka-topics.sh} commands instead and carries on.
 */
final class StreamsTopics {
    private static final Logger log = LoggerFactory.getLogger(StreamsTopics.class);

    private StreamsTopics() {
    }

    static void ensure(StreamsAppConfig cfg) {
        StreamsAppConfig.TopicNames t = cfg.topics();
        int partitions = cfg.getInt(StreamsAppConfig.TOPICS_PARTITIONS_CONFIG);
        int replication = cfg.getInt(StreamsAppConfig.REPLICATION_FACTOR_CONFIG);
        Optional<Short> rf = replication < 0 ? Optional.empty() : Optional.of((short) replication);
        List<NewTopic> wanted = new ArrayList<>();
        for (String name : all(t)) {
            wanted.add(new NewTopic(name, Optional.of(partitions), rf).configs(configs(t, name)));
        }

        Map<String, Object> props = new HashMap<>(cfg.kafkaOverrides());
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cfg.bootstrapServers());
        try (Admin admin = Admin.create(props)) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = wanted.stream().filter(nt -> !existing.contains(nt.name())).toList();
            if (missing.isEmpty()) {
                return;
            }
            for (var entry : admin.createTopics(missing).values().entrySet()) {
                try {
                    entry.getValue().get(30, TimeUnit.SECONDS);
                    log.info("created topic {} ({} partitions)", entry.getKey(), partitions);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            }
            try {
                KafkaOffsets.awaitWritable(admin, missing.stream().map(NewTopic::name).toList(),
                        KafkaOffsets.WRITABLE_TIMEOUT);
            } catch (IllegalStateException e) {
                // Kafka Streams retries what it cannot write yet; the wait only spares its producer a known race
                log.warn("starting anyway: {}", e.getMessage());
            }
        } catch (ExecutionException | TimeoutException e) {
            refuseWrongCredentials(cfg, e);
            log.warn("could not create topics ({}); create them with:\n{}", e.getMessage(), commands(cfg));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The partitions of the sample topics, which the job-assignment changes are re-partitioned to match (both sample
     * topics are partitioned by node, see {@link io.rdmamon.model.NodePartitioner}). Falls back to
     * {@code streams.topics.partitions} when the topic cannot be described; a difference between the two sample
     * topics is logged, since then one node's host samples are judged apart from its ports.
     */
    static int samplePartitions(StreamsAppConfig cfg) {
        StreamsAppConfig.TopicNames t = cfg.topics();
        Map<String, Object> props = new HashMap<>(cfg.kafkaOverrides());
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cfg.bootstrapServers());
        try (Admin admin = Admin.create(props)) {
            Map<String, Integer> counts = new HashMap<>();
            admin.describeTopics(List.of(t.portSamples(), t.hostSamples())).allTopicNames().get(30, TimeUnit.SECONDS)
                    .forEach((name, d) -> counts.put(name, d.partitions().size()));
            int ports = counts.get(t.portSamples());
            if (counts.get(t.hostSamples()) != ports) {
                log.warn("{} has {} partitions and {} has {}: they must match, or a node's host samples are judged "
                        + "apart from its ports", t.portSamples(), ports, t.hostSamples(), counts.get(t.hostSamples()));
            }
            return ports;
        } catch (ExecutionException | TimeoutException e) {
            refuseWrongCredentials(cfg, e);
            int configured = cfg.getInt(StreamsAppConfig.TOPICS_PARTITIONS_CONFIG);
            log.warn("could not describe {} ({}); assuming {} partitions", t.portSamples(), e.getMessage(), configured);
            return configured;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return cfg.getInt(StreamsAppConfig.TOPICS_PARTITIONS_CONFIG);
        }
    }

    /** Wrong credentials fail every later request too: the app stops here, saying so, rather than run and do nothing. */
    private static void refuseWrongCredentials(StreamsAppConfig cfg, Exception e) {
        if (KafkaAccess.isAuthenticationFailure(e)) {
            throw new AccessRefusedException(StreamsApp.access(cfg).describe(e).orElseThrow());
        }
    }

    /** The {@code kafka-topics.sh} commands that create what {@link #ensure} would. */
    static String commands(StreamsAppConfig cfg) {
        StreamsAppConfig.TopicNames t = cfg.topics();
        int partitions = cfg.getInt(StreamsAppConfig.TOPICS_PARTITIONS_CONFIG);
        String base = "kafka-topics.sh --bootstrap-server " + cfg.bootstrapServers() + " --create --if-not-exists"
                + " --partitions " + partitions + " --topic ";
        StringBuilder out = new StringBuilder();
        for (String name : all(t)) {
            out.append(base).append(name);
            configs(t, name).forEach((key, value) -> out.append(" --config ").append(key).append('=').append(value));
            out.append('\n');
        }
        return out.toString();
    }

    /**
     * A topic's settings: the tables compacted; the outputs stamped with the time the broker writes them, since their
     * records carry the traffic's time: a backlog reprocessed from longer ago than the retention (7 days by default)
     * would be deleted at the broker's next retention check, before the sink read it.
     */
    static Map<String, String> configs(StreamsAppConfig.TopicNames t, String name) {
        if (compacted(t).contains(name)) {
            return Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
        }
        if (List.of(t.jobBandwidth(), t.linkHealth(), t.alerts()).contains(name)) {
            return Map.of(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "LogAppendTime");
        }
        return Map.of();
    }

    /** The tables: the jobs topic and, when read, the nodes topic. */
    private static List<String> compacted(StreamsAppConfig.TopicNames t) {
        return t.nodes() == null ? List.of(t.jobs()) : List.of(t.jobs(), t.nodes());
    }

    /** The tables first, then the rest. */
    private static List<String> all(StreamsAppConfig.TopicNames t) {
        List<String> all = new ArrayList<>(compacted(t));
        all.addAll(uncompacted(t));
        return all;
    }

    /** Every topic but the compacted ones. */
    private static List<String> uncompacted(StreamsAppConfig.TopicNames t) {
        return List.of(t.portSamples(), t.hostSamples(), t.gpuSamples(), t.jobBandwidth(), t.linkHealth(), t.alerts(), t.deadLetter());
    }
}
