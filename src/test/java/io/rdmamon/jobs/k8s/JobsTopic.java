package io.rdmamon.jobs.k8s;

import io.rdmamon.model.JobRecord;
import io.rdmamon.model.JsonSerde;
import io.rdmamon.testing.TopicContent;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The jobs topic as a reader sees it: every record, checked against the contract (key, timestamp, header). */
record JobsTopic(String bootstrap, String topic) {
    List<JobRecord> all() {
        var deserializer = JsonSerde.of(JobRecord.class).deserializer();
        List<ConsumerRecord<String, byte[]>> records = TopicContent.readAll(bootstrap, topic);
        return records.stream().map(r -> {
            JobRecord job = deserializer.deserialize(topic, r.value());
            assertThat(r.key()).isEqualTo(job.uid());
            assertThat(r.timestamp()).isEqualTo(job.updatedAt());
            assertThat(new String(r.headers().lastHeader(PublishedJobs.SOURCE_HEADER).value(), StandardCharsets.UTF_8))
                    .isEqualTo(PublishedJobs.SOURCE);
            return job;
        }).toList();
    }

    List<JobRecord> of(String uid) {
        return all().stream().filter(j -> j.uid().equals(uid)).toList();
    }

    /** Waits until the job's latest record matches, and returns it. */
    JobRecord awaitLatest(String uid, Predicate<JobRecord> condition) {
        return await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(300))
                .until(() -> {
                    List<JobRecord> records = of(uid);
                    return records.isEmpty() ? null : records.get(records.size() - 1);
                }, latest -> latest != null && condition.test(latest));
    }

    static Predicate<JobRecord> state(String state) {
        return j -> j.state().equals(state);
    }
}
