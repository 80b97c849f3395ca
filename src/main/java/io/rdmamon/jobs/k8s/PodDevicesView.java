package io.rdmamon.jobs.k8s;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.model.PodDeviceMap;
import io.rdmamon.model.PodDeviceMap.PodDevices;
import io.rdmamon.model.RecordParser;
import io.rdmamon.support.LogLimiter;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The latest pod device map of every node, read from the pod-devices topic (compacted, key = node) on a thread of
 * its own. When a node's map changes, the listener hears which pods' devices changed ({@code namespace/pod}).
 */
final class PodDevicesView implements JobAssembler.DeviceSource, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PodDevicesView.class);
    private static final Duration PARTITION_RETRY = Duration.ofSeconds(30);

    private final Map<String, Map<String, PodDevices>> byNode = new ConcurrentHashMap<>();
    private final KafkaConsumer<String, byte[]> consumer;
    private final String topic;
    private final Consumer<Set<String>> listener;
    private final Counter invalid;
    private final LogLimiter logLimiter = new LogLimiter(Duration.ofMinutes(1));
    private final CountDownLatch caughtUp = new CountDownLatch(1);
    private final CountDownLatch closing = new CountDownLatch(1);
    private final Thread thread;
    private volatile boolean closed;

    PodDevicesView(Map<String, Object> readerSettings, String topic, Consumer<Set<String>> listener,
                   MeterRegistry registry) {
        this.consumer = new KafkaConsumer<>(readerSettings);
        this.topic = topic;
        this.listener = listener;
        this.invalid = Counter.builder("rdmamon.jobs.pod.devices.invalid")
                .description("pod device records that could not be read (skipped)").register(registry);
        this.thread = new Thread(this::run, "pod-devices-reader");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public PodDevices devices(String node, String namespace, String pod) {
        Map<String, PodDevices> pods = byNode.get(node);
        return pods == null ? null : pods.get(key(namespace, pod));
    }

    /** Waits until the topic was read to the end it had when reading began; false on timeout. */
    boolean awaitCaughtUp(Duration timeout) throws InterruptedException {
        return caughtUp.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void run() {
        try {
            while (!closed) {
                try {
                    read();
                } catch (WakeupException e) {
                    return;
                } catch (RuntimeException e) {
                    // e.g. Kafka out of reach for longer than the client's timeouts: read the topic again later
                    log.warn("reading {} failed: {}; ranks keep the devices known so far, reading again in {} s",
                            topic, e.toString(), PARTITION_RETRY.toSeconds());
                    caughtUp.countDown();
                    pause();
                }
            }
        } finally {
            caughtUp.countDown();
            consumer.close();
        }
    }

    private void read() {
        List<TopicPartition> partitions = assign();
        if (partitions.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
        while (!closed) {
            for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                apply(r);
            }
            if (caughtUp.getCount() > 0 && partitions.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp))) {
                caughtUp.countDown();
            }
        }
    }

    private void pause() {
        try {
            closing.await(PARTITION_RETRY.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        }
    }

    private List<TopicPartition> assign() {
        boolean told = false;
        while (!closed) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            if (!partitions.isEmpty()) {
                consumer.assign(partitions);
                consumer.seekToBeginning(partitions);
                return partitions;
            }
            // no collector published yet (or attribution is off everywhere): nothing to wait for
            caughtUp.countDown();
            if (!told) {
                log.info("topic {} does not exist (yet): ranks carry no devices until it does; looking again every "
                        + "{} s", topic, PARTITION_RETRY.toSeconds());
                told = true;
            }
            pause();
        }
        return List.of();
    }

    private void apply(ConsumerRecord<String, byte[]> r) {
        if (r.key() == null) {
            return;
        }
        Map<String, PodDevices> next;
        if (r.value() == null) {
            next = Map.of();
        } else {
            // the contract parser every reader uses: a map with a malformed device name is skipped, not joined
            RecordParser.Parsed<PodDeviceMap> parsed = RecordParser.POD_DEVICES.parse(r.value(), r.timestamp());
            if (!parsed.ok()) {
                invalid.increment();
                long suppressed = logLimiter.admit("invalid");
                if (suppressed != LogLimiter.SUPPRESS) {
                    log.warn("skipping pod device record of node {} at {}-{}@{}: {}{}", r.key(), r.topic(),
                            r.partition(), r.offset(), parsed.error(), LogLimiter.suffix(suppressed));
                }
                return;
            }
            next = parsed.value().pods().stream().collect(Collectors.toUnmodifiableMap(
                    p -> key(p.namespace(), p.pod()), p -> p, (a, b) -> a));
        }
        Map<String, PodDevices> previous = byNode.put(r.key(), next);
        Set<String> changed = new HashSet<>();
        Set<String> pods = new HashSet<>(next.keySet());
        if (previous != null) {
            pods.addAll(previous.keySet());
        }
        for (String pod : pods) {
            if (previous == null || !Objects.equals(previous.get(pod), next.get(pod))) {
                changed.add(pod);
            }
        }
        if (!changed.isEmpty()) {
            listener.accept(changed);
        }
    }

    static String key(String namespace, String pod) {
        return namespace + "/" + pod;
    }

    @Override
    public void close() {
        closed = true;
        closing.countDown();
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
