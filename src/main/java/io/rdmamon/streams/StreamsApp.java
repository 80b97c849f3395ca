package io.rdmamon.streams;

import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.access.KafkaAccess;
import io.rdmamon.access.RoleAcls;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The running stream app: creates missing topics, starts {@link KafkaStreams} on {@link RdmamonTopology} with
 * exactly-once processing, and binds Kafka Streams' own metrics to the given Micrometer registry. Used by
 * {@code rdmamon streams}, the demo and the integration tests.
 */
public final class StreamsApp implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StreamsApp.class);

    private final StreamsAppConfig cfg;
    private final MeterRegistry registry;
    private final boolean decodeOnly;
    private KafkaStreams streams;
    private KafkaStreamsMetrics metrics;
    private volatile String refused;

    public StreamsApp(StreamsAppConfig cfg, MeterRegistry registry) {
        this(cfg, registry, false);
    }

    /** With {@code decodeOnly}, runs {@link RdmamonTopology#buildDecodeOnly} instead: the benchmark's floor. */
    public StreamsApp(StreamsAppConfig cfg, MeterRegistry registry, boolean decodeOnly) {
        this.cfg = cfg;
        this.registry = registry;
        this.decodeOnly = decodeOnly;
    }

    public StreamsApp start() {
        return start(null);
    }

    /** Starts, reporting every state change (RUNNING, ERROR, ...) to {@code listener} when not null. */
    public StreamsApp start(KafkaStreams.StateListener listener) {
        if (cfg.getBoolean(StreamsAppConfig.TOPICS_CREATE_CONFIG)) {
            StreamsTopics.ensure(cfg);
        }
        Topology topology = decodeOnly ? RdmamonTopology.buildDecodeOnly(cfg, registry)
                : RdmamonTopology.build(cfg, registry, StreamsTopics.samplePartitions(cfg));
        log.debug("topology:\n{}", topology.describe());
        streams = new KafkaStreams(topology, RdmamonTopology.streamsConfig(cfg));
        KafkaAccess access = access(cfg);
        streams.setUncaughtExceptionHandler(e -> {
            // a new thread would be refused the same way, for ever: stop, so that the process exits and says why
            Optional<String> refusal = access.describe(e);
            if (refusal.isPresent()) {
                refused = refusal.get();
                log.error("{}; stopping", refusal.get());
                return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
            }
            log.error("stream thread failed; replacing it (state is restored from the changelogs)", e);
            return StreamThreadExceptionResponse.REPLACE_THREAD;
        });
        if (listener != null) {
            streams.setStateListener(listener);
        }
        metrics = new KafkaStreamsMetrics(streams);
        metrics.bindTo(registry);
        streams.start();
        log.info("rdmamon streams started: application.id {}, bootstrap {}, inputs {}, {}, {}", cfg.applicationId(),
                cfg.bootstrapServers(), cfg.topics().portSamples(), cfg.topics().hostSamples(), cfg.topics().jobs());
        return this;
    }

    /** The app's Kafka identity and the ACLs it needs (docs/deploy.md, "Kafka ACLs"), to say why Kafka refused it. */
    static KafkaAccess access(StreamsAppConfig cfg) {
        Map<String, Object> settings = new HashMap<>(cfg.kafkaOverrides());
        settings.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, cfg.bootstrapServers());
        StreamsAppConfig.TopicNames t = cfg.topics();
        List<String> inputs = t.nodes() == null ? List.of(t.portSamples(), t.hostSamples(), t.gpuSamples(), t.jobs())
                : List.of(t.portSamples(), t.hostSamples(), t.gpuSamples(), t.jobs(), t.nodes());
        return KafkaAccess.of(settings, RoleAcls.streams(cfg.applicationId(), inputs, List.of(t.jobBandwidth(), t.linkHealth(), t.alerts(), t.deadLetter())));
    }

    /** Why Kafka turned the app away for good (wrong credentials, an ACL missing), once it stopped for it. */
    public Optional<String> refused() {
        return Optional.ofNullable(refused);
    }

    /** Kafka Streams' state (CREATED before {@link #start}). */
    public KafkaStreams.State state() {
        return streams == null ? KafkaStreams.State.CREATED : streams.state();
    }

    @Override
    public void close() {
        if (streams != null) {
            // a clean stop (an upgrade, a rescheduled pod) leaves the consumer group, so the instance that starts next
            // or the others take the tasks over at once; Kafka Streams otherwise stays a member, and the group waits
            // out the session timeout (45 s) for it: that long without alerts (measured with rdmamon bench streams,
            // whose app starts once before the backlog). A crash still costs the session timeout.
            streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                    .withTimeout(Duration.ofSeconds(30)));
            streams = null;
        }
        if (metrics != null) {
            metrics.close();
            metrics = null;
        }
    }
}
