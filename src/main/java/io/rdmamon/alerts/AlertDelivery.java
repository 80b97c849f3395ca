package io.rdmamon.alerts;

import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.access.KafkaAccess;
import io.rdmamon.access.RoleAcls;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code rdmamon alerts} as a library: delivers the alerts topic to every configured receiver, each in its own thread
 * and consumer group ({@code <group.id>-<receiver>}). Embeddable (e.g. in the stream app's process):
 * {@code try (AlertDelivery d = AlertDelivery.start(config, registry)) { ... }}.
 */
public final class AlertDelivery implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AlertDelivery.class);
    /** How long the rebuild of firing incidents may read the topic when partitions are assigned. */
    static final Duration HISTORY_DEADLINE = Duration.ofMinutes(2);
    /** Few records per poll: a slow receiver must get through one poll's records within max.poll.interval.ms. */
    static final int DEFAULT_MAX_POLL_RECORDS = 100;

    private final List<DeliveryLoop> loops = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final DeadLetters deadLetters;
    private final Duration stopTimeout;
    private final CountDownLatch anyStopped = new CountDownLatch(1);
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile String refused;

    private AlertDelivery(AlertsConfig config, MeterRegistry registry, Clock clock) {
        List<Receiver> receivers = receivers(config, clock);
        if (receivers.isEmpty()) {
            throw new ConfigException("no receiver configured: set " + AlertsConfig.ALERTMANAGER_URL_CONFIG + " and/or "
                    + AlertsConfig.WEBHOOK_URL_CONFIG);
        }
        this.stopTimeout = config.requestTimeout().plusSeconds(10);
        this.deadLetters = new DeadLetters(config.kafkaSettings(), config.deadLetterTopic());
        for (Receiver receiver : receivers) {
            ActiveIncidents active = receiver.needsResend() ? new ActiveIncidents() : null;
            KeepAlive keepAlive = active == null ? null : new KeepAlive(receiver.name(), active,
                    new IncidentHistory(config.kafkaSettings(), HISTORY_DEADLINE), config.resendInterval(), clock);
            loops.add(new DeliveryLoop(new HttpSender(receiver, config.requestTimeout()),
                    new KafkaConsumer<>(consumerSettings(config, receiver.name())), config.topic(), deadLetters,
                    keepAlive, new Backoff(config.retryBackoffInitial(), config.retryBackoffMax(), Math::random),
                    new DeliveryMetrics(registry, receiver.name(), active), clock));
        }
    }

    /** Starts one delivery thread per configured receiver. */
    public static AlertDelivery start(AlertsConfig config, MeterRegistry registry) {
        AlertDelivery delivery = new AlertDelivery(config, registry, Clock.systemUTC());
        for (DeliveryLoop loop : delivery.loops) {
            Thread thread = new Thread(() -> {
                try {
                    loop.run();
                } catch (RuntimeException e) {
                    Optional<String> refused = access(config).describe(e);
                    if (refused.isPresent()) {
                        delivery.refused = refused.get();
                        log.error("{}; alert delivery stopped", refused.get());
                    } else {
                        log.error("alert delivery stopped by an unexpected error", e);
                    }
                } finally {
                    delivery.anyStopped.countDown();
                }
            }, "alerts-" + delivery.threads.size());
            delivery.threads.add(thread);
            thread.start();
        }
        return delivery;
    }

    /** Blocks until a delivery thread ends by itself (a fatal error) or {@link #close()} is called. */
    public void awaitStop() throws InterruptedException {
        anyStopped.await();
    }

    /** The role's Kafka identity and the ACLs it needs (docs/deploy.md, "Kafka ACLs"), to say why Kafka refused it. */
    static KafkaAccess access(AlertsConfig config) {
        return KafkaAccess.of(config.kafkaSettings(), RoleAcls.alerts(config.groupId(), config.topic(),
                config.deadLetterTopic()));
    }

    /** Why Kafka turned a delivery away for good (wrong credentials, an ACL missing), once one stopped for it. */
    public Optional<String> refused() {
        return Optional.ofNullable(refused);
    }

    static List<Receiver> receivers(AlertsConfig config, Clock clock) {
        List<Receiver> receivers = new ArrayList<>();
        GeneratorLink link = new GeneratorLink(config.generatorUrl());
        List<URI> alertmanagers = config.alertmanagerUrls();
        for (URI url : alertmanagers) {
            // every instance of an Alertmanager cluster must get every alert, each at its own pace
            String name = alertmanagers.size() == 1 ? "alertmanager"
                    : ("alertmanager-" + url.getHost() + "-" + url.getPort()).replaceAll("[^A-Za-z0-9_.-]", "_");
            receivers.add(new AlertmanagerReceiver(name, url, config.resendInterval(), config.requestTimeout(), link,
                    clock));
        }
        URI webhook = config.webhookUrl();
        if (webhook != null) {
            receivers.add(new WebhookReceiver(webhook, config.webhookToken(), config.webhookTokenFile(),
                    config.requestTimeout()));
        }
        return receivers;
    }

    static Map<String, Object> consumerSettings(AlertsConfig config, String receiver) {
        Map<String, Object> settings = new HashMap<>(config.kafkaSettings());
        settings.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId() + "-" + receiver);
        settings.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, config.groupId() + "-" + receiver);
        // offsets move only when the receiver accepted: never behind our back
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // alerts written before the first start are delivered too
        settings.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // the stream app writes alerts in transactions: an aborted attempt must not reach anyone
        settings.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        settings.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, DEFAULT_MAX_POLL_RECORDS);
        settings.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        settings.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return settings;
    }

    /** Stops every delivery; alerts being retried stay uncommitted and are delivered by the next start. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        loops.forEach(DeliveryLoop::stop);
        for (Thread thread : threads) {
            try {
                thread.join(stopTimeout.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        deadLetters.close();
        anyStopped.countDown();
    }
}
