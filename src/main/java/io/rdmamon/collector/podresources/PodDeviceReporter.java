package io.rdmamon.collector.podresources;

import io.grpc.StatusRuntimeException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.collector.SampleSink;
import io.rdmamon.model.Json;
import io.rdmamon.model.PodDeviceMap;
import io.rdmamon.support.LogLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Asks the kubelet every interval which pod holds which RDMA device and publishes the node's {@link PodDeviceMap}
 * through the collector's sink when it changed (or the republish interval passed). On its own thread: a slow kubelet
 * never delays sampling. When the kubelet cannot be asked, the last published map stands (an error is not an empty
 * node).
 */
public final class PodDeviceReporter implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PodDeviceReporter.class);

    /** Where the node's map comes from: the kubelet, or the pod's own sysfs. */
    interface MapSource {
        /** @throws StatusRuntimeException when the kubelet cannot be asked */
        PodDeviceMap map(String node, long now);

        void close();
    }

    private final MapSource source;
    private final String node;
    private final String topic;
    private final long republishMs;
    private final SampleSink sink;
    private final Clock clock;
    private final Counter listFailures;
    private final Counter published;
    private final LogLimiter logLimiter = new LogLimiter(Duration.ofMinutes(1));
    private PodDeviceMap last;
    private volatile ScheduledExecutorService scheduler;

    public PodDeviceReporter(PodResourcesClient client, DeviceAttribution attribution, String node, String topic,
                             Duration republishInterval, SampleSink sink, Clock clock, MeterRegistry registry) {
        this(new MapSource() {
            @Override
            public PodDeviceMap map(String n, long now) {
                return attribution.map(n, now, client.list());
            }

            @Override
            public void close() {
                client.close();
            }
        }, node, topic, republishInterval, sink, clock, registry);
    }

    PodDeviceReporter(MapSource source, String node, String topic, Duration republishInterval, SampleSink sink,
                      Clock clock, MeterRegistry registry) {
        this.source = source;
        this.node = node;
        this.topic = topic;
        this.republishMs = republishInterval.toMillis();
        this.sink = sink;
        this.clock = clock;
        this.listFailures = Counter.builder("rdmamon.podresources.list.failures")
                .description("calls to the kubelet pod-resources API that failed or timed out").register(registry);
        this.published = Counter.builder("rdmamon.podresources.maps.published")
                .description("pod device maps published").register(registry);
    }

    /**
     * Starts reporting for {@code node}, or returns null (with one log line) when attribution is off: no socket
     * configured, or no socket at the configured path (not a Kubernetes node, or the kubelet directory not mounted).
     */
    public static PodDeviceReporter startIfAvailable(PodResourcesConfig config, String node, Path sysfsRoot,
                                                     SampleSink sink, MeterRegistry registry) {
        Path socket = config.socket();
        if (socket == null) {
            log.info("pod device attribution off ({} is empty)", PodResourcesConfig.SOCKET_CONFIG);
            return null;
        }
        if (!Files.exists(socket)) {
            log.info("pod device attribution off: no kubelet pod-resources socket at {} (not on Kubernetes, or "
                    + "/var/lib/kubelet/pod-resources not mounted; set {})", socket, PodResourcesConfig.SOCKET_CONFIG);
            return null;
        }
        PodDeviceReporter reporter = new PodDeviceReporter(PodResourcesClient.forSocket(socket, config.timeout()),
                new DeviceAttribution(sysfsRoot, config, registry), node, config.topic(), config.republishInterval(),
                sink, Clock.systemUTC(), registry);
        reporter.start(config.interval());
        log.info("pod device attribution from {} every {} ms to {}", socket, config.interval().toMillis(),
                config.topic());
        return reporter;
    }

    /**
     * Starts reporting for a collector inside pod {@code namespace/pod} (collector mode {@code pod}), whose records
     * are named {@code node}: every RDMA device of the pod's sysfs is the pod's, and so is every GPU of {@code gpus}
     * ({@link InPodDevices}). Null (with a
     * warning) when the pod's name is not known.
     */
    public static PodDeviceReporter startInPod(PodResourcesConfig config, String node, String namespace, String pod,
                                               Path sysfsRoot, Pattern include, Pattern exclude,
                                               Supplier<List<String>> gpus, SampleSink sink, MeterRegistry registry) {
        if (namespace == null || namespace.isBlank() || pod == null || pod.isBlank()) {
            // collector.node named the records: without the pod's name its devices cannot be said to be its
            log.warn("pod device attribution off: POD_NAMESPACE and POD_NAME are not set (downward API)");
            return null;
        }
        PodDeviceReporter reporter = new PodDeviceReporter(new InPodDevices(sysfsRoot, namespace.trim(), pod.trim(),
                include, exclude, gpus), node, config.topic(), config.republishInterval(), sink, Clock.systemUTC(), registry);
        reporter.start(config.interval());
        log.info("pod device attribution in pod {}/{}: its RDMA devices under {} every {} ms to {}", namespace, pod,
                sysfsRoot, config.interval().toMillis(), config.topic());
        return reporter;
    }

    public void start(Duration interval) {
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "pod-devices-" + node));
        scheduler.scheduleWithFixedDelay(this::pollSafely, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void pollSafely() {
        try {
            poll();
        } catch (RuntimeException e) {
            listFailures.increment();
            log.error("pod device attribution round failed, next round continues: {}", e.toString(), e);
        }
    }

    /**
     * One round: ask the kubelet, map, publish if the map changed or is due again. Returns the node's current map, or
     * null when the kubelet could not be asked.
     */
    public synchronized PodDeviceMap poll() {
        long now = clock.millis();
        PodDeviceMap current;
        try {
            current = source.map(node, now);
        } catch (StatusRuntimeException e) {
            listFailures.increment();
            long suppressed = logLimiter.admit("list");
            if (suppressed != LogLimiter.SUPPRESS) {
                log.warn("kubelet pod-resources List failed ({}); keeping the last published map{}",
                        e.getStatus(), LogLimiter.suffix(suppressed));
            }
            return null;
        }
        if (!current.sameMapping(last) || now - last.ts() >= republishMs) {
            sink.publish(topic, node, now, Json.toBytes(current));
            published.increment();
            last = current;
        }
        return current;
    }

    /** Stops polling (a round under way finishes first); the sink stays open, it is the collector's. */
    @Override
    public void close() {
        ScheduledExecutorService running = scheduler;
        if (running != null) {
            running.shutdown();
            try {
                running.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        source.close();
    }
}
