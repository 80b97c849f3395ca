package io.rdmamon.alerts;

import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Keeps firing incidents alive at a receiver that forgets them (Alertmanager drops an alert at its endsAt and holds
 * nothing across its own restart): the incidents firing on the owned partitions are re-posted every resend interval,
 * and rebuilt from the topic when partitions are assigned, so a restarted rdmamon renews what its predecessor posted.
 */
final class KeepAlive {
    private static final Logger log = LoggerFactory.getLogger(KeepAlive.class);

    private final String receiver;
    private final ActiveIncidents active;
    private final IncidentHistory history;
    private final Duration interval;
    private final Clock clock;
    private long nextResendMs;

    KeepAlive(String receiver, ActiveIncidents active, IncidentHistory history, Duration interval, Clock clock) {
        this.receiver = receiver;
        this.active = active;
        this.history = history;
        this.interval = interval;
        this.clock = clock;
        this.nextResendMs = clock.millis() + interval.toMillis();
    }

    /** The receiver accepted this record: a firing one is now kept alive, a resolved one no longer. */
    void accepted(TopicPartition partition, AlertMessage message) {
        active.apply(partition, message);
    }

    /** The receiver refused this record: a resolved incident is not renewed either way. */
    void rejected(AlertMessage message) {
        if (!message.firing()) {
            active.remove(message.id());
        }
    }

    /** Rebuilds the incidents of newly owned partitions from their records below the committed offsets. */
    void assigned(Map<TopicPartition, Long> committed) {
        int before = active.size();
        long read = history.replay(committed, active);
        if (read > 0) {
            log.info("{}: {} firing incident(s) rebuilt from {} record(s) of {}", receiver, active.size() - before, read,
                    committed.keySet());
            nextResendMs = clock.millis(); // the receiver may have lost them meanwhile: renew now
        }
    }

    void revoked(Collection<TopicPartition> partitions) {
        active.forget(partitions);
    }

    Duration untilDue() {
        return Duration.ofMillis(Math.max(0, nextResendMs - clock.millis()));
    }

    /** One attempt, no waiting: after a failure the next attempt comes after the backoff's wait. */
    void resendIfDue(HttpSender sender, Backoff backoff, DeliveryMetrics metrics) throws InterruptedException {
        if (clock.millis() < nextResendMs) {
            return;
        }
        Receiver receiver = sender.receiver();
        List<AlertMessage> firing = active.all();
        SendOutcome outcome = sender.send(firing);
        for (SendOutcome.Rejection rejection : outcome.rejections()) {
            // accepted once; a receiver that changed its mind would refuse it on every resend
            AlertMessage message = firing.get(rejection.index());
            log.warn("{} rejected the resend of alert {} ({}); no longer re-posted: {}", receiver.describe(),
                    message.id(), message.alert().type(), rejection.reason());
            active.remove(message.id());
        }
        metrics.resent.increment(outcome.handled() - outcome.rejections().size());
        if (outcome.complete()) {
            nextResendMs = clock.millis() + interval.toMillis();
            backoff.reset();
        } else {
            metrics.failed.increment();
            Duration wait = backoff.next();
            log.warn("{} unavailable for the resend of {} firing alert(s) ({}); next try in {} ms",
                    receiver.describe(), firing.size(), outcome.failure(), wait.toMillis());
            nextResendMs = clock.millis() + wait.toMillis();
        }
    }
}
