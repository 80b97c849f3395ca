package io.rdmamon.jobs.k8s;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.Json;
import io.rdmamon.model.NodeRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Sends job records (and node records, {@link #sendNode}): key = uid, timestamp = updatedAt, header {@value PublishedJobs#SOURCE_HEADER} so that a
 * restarted watcher recognises its own records. The producer is idempotent with acks=all and retries until its
 * delivery timeout; a record it gives up on is logged, counted and handed to {@code onFailure}.
 */
final class JobsPublisher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(JobsPublisher.class);

    private final Producer<String, byte[]> producer;
    private final String topic;
    private final MeterRegistry registry;
    private final Counter failures;

    JobsPublisher(Map<String, Object> producerSettings, String topic, MeterRegistry registry) {
        this.producer = new KafkaProducer<>(producerSettings);
        this.topic = topic;
        this.registry = registry;
        this.failures = Counter.builder("rdmamon.jobs.publish.failures")
                .description("job and node records Kafka did not accept; they are sent again at the next reconcile")
                .register(registry);
    }

    void send(JobRecord job, Consumer<JobRecord> onFailure) {
        producer.send(ours(topic, job.uid(), job.updatedAt(), Json.toBytes(job)), (metadata, error) -> {
            if (error != null) {
                failures.increment();
                log.warn("job {} ({}/{}) state {} not published: {}", job.uid(), job.namespace(), job.job(),
                        job.state(), error.toString());
                onFailure.accept(job);
            }
        });
        Counter.builder("rdmamon.jobs.published").description("job records handed to Kafka, by state")
                .tag("state", job.state()).register(registry).increment();
        log.info("job {}/{} ({}) {}: {} ranks", job.namespace(), job.job(), job.uid(), job.state(), job.ranks().size());
    }

    /** A node's presence to {@code nodesTopic}: key = node, timestamp = at, the same source header. */
    void sendNode(String nodesTopic, NodeRecord node, Consumer<NodeRecord> onFailure) {
        producer.send(ours(nodesTopic, node.node(), node.at(), Json.toBytes(node)), (metadata, error) -> {
            if (error != null) {
                failures.increment();
                log.warn("node {} {} not published: {}", node.node(), node.state(), error.toString());
                onFailure.accept(node);
            }
        });
        Counter.builder("rdmamon.jobs.nodes.published").description("node records (Present, Deleted) handed to "
                + "Kafka, by state").tag("state", node.state()).register(registry).increment();
        log.info("node {} {}", node.node(), node.state());
    }

    private static ProducerRecord<String, byte[]> ours(String topic, String key, long timestamp, byte[] value) {
        return new ProducerRecord<>(topic, null, timestamp, key, value, List.of(new RecordHeader(
                PublishedJobs.SOURCE_HEADER, PublishedJobs.SOURCE.getBytes(StandardCharsets.UTF_8))));
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(10));
    }
}
