package io.rdmamon.jobs.k8s;

import io.rdmamon.support.TopicReader;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.JsonSerde;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;

/**
 * The last record published per live job (Deleted jobs are dropped), to publish only changes. At start it is read
 * back from the jobs topic itself: the records this watcher role wrote (header {@value #SOURCE_HEADER}) for the
 * watched namespace, the last one per key. So a restarted watcher repeats nothing unchanged and sends Deleted for
 * the jobs that went away while it was down. Only the builder thread uses it.
 */
final class PublishedJobs {
    static final String SOURCE_HEADER = "rdmamon-source";
    static final String SOURCE = "jobs-watch";
    private static final Logger log = LoggerFactory.getLogger(PublishedJobs.class);

    private final Map<String, JobRecord> live = new HashMap<>();
    /** Jobs whose last record Kafka did not take: sent again even when unchanged. */
    private final Set<String> unsent = new HashSet<>();

    /** The last record sent for a live job (or a Deleted one not yet accepted), null when none. */
    JobRecord get(String uid) {
        return live.get(uid);
    }

    Set<String> uids() {
        return Set.copyOf(live.keySet());
    }

    int size() {
        return live.size();
    }

    /** Whether {@code next} must be sent: it says something the last record did not, or that one was not taken. */
    boolean mustSend(JobRecord next) {
        return unsent.contains(next.uid()) || changed(live.get(next.uid()), next);
    }

    void remember(JobRecord record) {
        unsent.remove(record.uid());
        if (JobRecord.DELETED.equals(record.state())) {
            live.remove(record.uid());
        } else {
            live.put(record.uid(), record);
        }
    }

    /** Kafka refused {@code record}: unless something newer was sent since, send this job's state again. */
    void unsent(JobRecord record) {
        JobRecord current = live.get(record.uid());
        if (current == null || current.updatedAt() <= record.updatedAt()) {
            live.put(record.uid(), record);
            unsent.add(record.uid());
        }
    }

    static boolean changed(JobRecord last, JobRecord next) {
        return last == null || !JobAssembler.withUpdatedAt(last, 0).equals(JobAssembler.withUpdatedAt(next, 0));
    }

    /**
     * Reads {@code topic} from the beginning to its current end. {@code namespace}: null for all namespaces.
     *
     * @throws TimeoutException when the topic cannot be read to its end within {@code timeout}
     */
    static PublishedJobs readBack(Map<String, Object> readerSettings, String topic, String namespace,
                                  Duration timeout) throws TimeoutException {
        PublishedJobs published = new PublishedJobs();
        var deserializer = JsonSerde.of(JobRecord.class).deserializer();
        int[] skipped = {0};
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(readerSettings)) {
            TopicReader.readToEnd(consumer, topic, timeout, r -> {
                if (!ours(r)) {
                    return;
                }
                if (r.value() == null) {
                    published.live.remove(r.key());
                    return;
                }
                try {
                    JobRecord job = deserializer.deserialize(topic, r.value());
                    if (namespace == null || namespace.equals(job.namespace())) {
                        published.remember(job);
                    }
                } catch (SerializationException e) {
                    skipped[0]++;
                }
            });
        }
        if (skipped[0] > 0) {
            log.warn("{} unreadable records of this watcher on {} ignored while reading back", skipped[0], topic);
        }
        log.info("read back {} live jobs from {}", published.size(), topic);
        return published;
    }

    static boolean ours(ConsumerRecord<String, byte[]> r) {
        Header source = r.headers().lastHeader(SOURCE_HEADER);
        return source != null && SOURCE.equals(new String(source.value(), StandardCharsets.UTF_8));
    }
}
