package io.rdmamon.alerts;

import io.rdmamon.support.CommittedPositions;
import io.rdmamon.support.Excerpt;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;

/**
 * Delivers the alerts topic to one receiver, in its own consumer group: poll, send in order, commit only what the
 * receiver accepted (or what went to the dead-letter topic). While the receiver is down the partitions are paused and
 * the same records are retried with exponential backoff; polling goes on meanwhile, so the group membership holds and
 * memory stays bounded by one poll's records. For receivers that forget (Alertmanager) the firing incidents are
 * re-posted every resend interval.
 */
final class DeliveryLoop implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(DeliveryLoop.class);
    private static final Duration IDLE_POLL = Duration.ofSeconds(5);

    private final HttpSender sender;
    private final Receiver receiver;
    private final Consumer<byte[], byte[]> consumer;
    private final String topic;
    private final DeadLetters deadLetters;
    private final KeepAlive keepAlive;
    private final Backoff backoff;
    private final DeliveryMetrics metrics;
    private final Clock clock;
    /** Partitions revoked since the current batch was polled: their records now belong to another consumer. */
    private final Set<TopicPartition> revoked = new HashSet<>();
    private final Map<TopicPartition, OffsetAndMetadata> toCommit = new HashMap<>();
    private final CommittedPositions committed = new CommittedPositions();
    private volatile boolean running = true;

    /** @param keepAlive re-posts firing incidents; null when the receiver remembers them itself */
    DeliveryLoop(HttpSender sender, Consumer<byte[], byte[]> consumer, String topic, DeadLetters deadLetters,
                 KeepAlive keepAlive, Backoff backoff, DeliveryMetrics metrics, Clock clock) {
        this.sender = sender;
        this.receiver = sender.receiver();
        this.consumer = consumer;
        this.topic = topic;
        this.deadLetters = deadLetters;
        this.keepAlive = keepAlive;
        this.backoff = backoff;
        this.metrics = metrics;
        this.clock = clock;
    }

    @Override
    public void run() {
        log.info("delivering {} to {}", topic, receiver.describe());
        try {
            consumer.subscribe(List.of(topic), new Rebalance());
            while (running) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(pollTimeout());
                revoked.clear();
                deliver(records);
                if (keepAlive != null) {
                    keepAlive.resendIfDue(sender, backoff, metrics);
                }
            }
        } catch (WakeupException e) {
            if (running) {
                throw e;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            commitOnStop();
            consumer.close();
            metrics.close();
            log.info("stopped delivering to {}", receiver.describe());
        }
    }

    /** Ends {@link #run()} soon, from any thread; a batch being retried is left uncommitted for the next start. */
    void stop() {
        running = false;
        consumer.wakeup();
    }

    /** Runs of valid alerts are sent together; an invalid record in between goes to the dead-letter topic in order. */
    private void deliver(ConsumerRecords<byte[], byte[]> records) throws InterruptedException {
        List<Pending> run = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            if (revoked.contains(new TopicPartition(record.topic(), record.partition()))) {
                continue; // lost while waiting out a failure: the new owner delivers it
            }
            if (record.value() == null) {
                finished(record); // a tombstone of a compacted topic: nothing to deliver
                continue;
            }
            try {
                run.add(new Pending(record, AlertMessage.parse(record.value())));
            } catch (AlertMessage.InvalidAlertException e) {
                send(run);
                run.clear();
                if (revoked.contains(new TopicPartition(record.topic(), record.partition()))) {
                    continue;
                }
                log.warn("{}: record {}-{}@{} is not a deliverable alert ({}); dead-lettered: {}", receiver.name(),
                        record.topic(), record.partition(), record.offset(), e.getMessage(), preview(record.value()));
                deadLetter(record, e.getMessage());
                metrics.invalid.increment();
            }
        }
        send(run);
        commitPositions();
    }

    /** Sends in order until all are accepted or rejected, waiting out failures; gives up records no longer owned. */
    private void send(List<Pending> run) throws InterruptedException {
        List<Pending> remaining = run;
        while (!remaining.isEmpty()) {
            SendOutcome outcome = sender.send(remaining.stream().map(Pending::message).toList());
            Map<Integer, SendOutcome.Rejection> rejections = new HashMap<>();
            outcome.rejections().forEach(r -> rejections.put(r.index(), r));
            for (int i = 0; i < outcome.handled(); i++) {
                Pending p = remaining.get(i);
                SendOutcome.Rejection rejection = rejections.get(i);
                if (rejection == null) {
                    metrics.delivered.increment();
                    if (keepAlive != null) {
                        keepAlive.accepted(p.partition(), p.message());
                    }
                } else {
                    reject(p, rejection);
                }
                finished(p.record());
            }
            commit();
            remaining = remaining.subList(outcome.handled(), remaining.size());
            if (!outcome.complete()) {
                metrics.failed.increment();
                Duration wait = backoff.next();
                log.warn("{} unavailable ({}): {} alert(s) waiting, retry {} in {} ms", receiver.describe(),
                        outcome.failure(), remaining.size(), backoff.failures(), wait.toMillis());
                waitBeforeRetry(wait);
                metrics.retries.increment();
                remaining = remaining.stream().filter(p -> !revoked.contains(p.partition())).toList();
            } else if (backoff.failures() > 0) {
                log.info("{} accepts alerts again after {} failed attempt(s)", receiver.describe(), backoff.failures());
                backoff.reset();
            }
        }
    }

    private void reject(Pending p, SendOutcome.Rejection rejection) throws InterruptedException {
        log.warn("{} rejected alert {} ({} {}, record {}@{}): {}; dead-lettered", receiver.describe(), p.message().id(),
                p.message().alert().type(), p.message().alert().status(), p.partition(), p.record().offset(),
                rejection.reason());
        deadLetter(p.record(), receiver.describe() + " rejected the alert: " + rejection.reason());
        metrics.rejected.increment();
        if (keepAlive != null) {
            keepAlive.rejected(p.message());
        }
    }

    /** Written before the offset moves past the record; Kafka being unavailable is waited out like a receiver. */
    private void deadLetter(ConsumerRecord<byte[], byte[]> record, String reason) throws InterruptedException {
        while (true) {
            try {
                deadLetters.publish(record, receiver.name(), reason);
                finished(record);
                return;
            } catch (ExecutionException | KafkaException e) {
                Duration wait = backoff.next();
                log.warn("cannot write to the dead-letter topic ({}), retry in {} ms", e.getMessage(), wait.toMillis());
                waitBeforeRetry(wait);
            }
        }
    }

    /**
     * Sleeps by polling with every partition paused: keeps the group membership alive and lets a rebalance happen.
     * Records still returned (from partitions assigned meanwhile) are rewound, to be fetched again later.
     */
    private void waitBeforeRetry(Duration wait) {
        long until = clock.millis() + wait.toMillis();
        do {
            consumer.pause(consumer.assignment());
            ConsumerRecords<byte[], byte[]> unexpected = consumer.poll(Duration.ofMillis(Math.max(1,
                    until - clock.millis())));
            for (TopicPartition tp : unexpected.partitions()) {
                consumer.seek(tp, unexpected.records(tp).get(0).offset());
            }
        } while (running && clock.millis() < until);
        consumer.resume(consumer.paused());
    }

    private Duration pollTimeout() {
        if (keepAlive == null) {
            return IDLE_POLL;
        }
        Duration untilResend = keepAlive.untilDue();
        return untilResend.compareTo(IDLE_POLL) < 0 ? untilResend : IDLE_POLL;
    }

    private void finished(ConsumerRecord<?, ?> record) {
        toCommit.put(new TopicPartition(record.topic(), record.partition()), new OffsetAndMetadata(record.offset() + 1));
    }

    private void commit() {
        toCommit.keySet().removeIf(revoked::contains);
        if (toCommit.isEmpty()) {
            return;
        }
        try {
            consumer.commitSync(toCommit);
            committed.committed(toCommit);
        } catch (CommitFailedException e) {
            // the group moved on without us: the new owner delivers these records again (harmless, see docs)
            log.warn("{}: offsets not committed, the records will be delivered again: {}", receiver.name(),
                    e.getMessage());
        }
        toCommit.clear();
    }

    /**
     * Once a whole poll is delivered, every record before the consumer's position is delivered (records returned
     * while waiting out a failure were rewound), so the position can be committed: past the transaction marker, once
     * read, of the stream app's transactional writes.
     */
    private void commitPositions() {
        toCommit.putAll(committed.movedOn(consumer));
        commit();
    }

    /** Progress made after {@link #stop()} interrupted a commit; anything uncommitted is simply delivered again. */
    private void commitOnStop() {
        try {
            commit();
        } catch (KafkaException e) {
            log.info("{}: last offsets not committed on stop ({}); those alerts are delivered again at the next start",
                    receiver.name(), e.toString());
        }
    }

    private static String preview(byte[] value) {
        return Excerpt.of(new String(value, java.nio.charset.StandardCharsets.UTF_8), 200);
    }

    private record Pending(ConsumerRecord<byte[], byte[]> record, AlertMessage message) {
        TopicPartition partition() {
            return new TopicPartition(record.topic(), record.partition());
        }
    }

    /** Keeps the firing incidents in step with the partitions owned. */
    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            commit();
            onPartitionsLost(partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            revoked.addAll(partitions);
            committed.forget(partitions);
            if (keepAlive != null) {
                keepAlive.revoked(partitions);
            }
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (keepAlive == null || partitions.isEmpty()) {
                return;
            }
            Map<TopicPartition, Long> committedOffsets = new HashMap<>();
            consumer.committed(new HashSet<>(partitions)).forEach((tp, offset) -> {
                if (offset != null) {
                    committedOffsets.put(tp, offset.offset());
                }
            });
            keepAlive.assigned(committedOffsets);
        }
    }
}
