package io.rdmamon.replay;

import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.config.ConfigLoader;
import io.rdmamon.streams.RdmamonTopology;
import io.rdmamon.streams.StreamsAppConfig;

import java.nio.file.Path;
import java.util.Map;

/**
 * Replays through the real stream app: the topology and Kafka Streams settings come from
 * {@link RdmamonTopology#build} and {@link RdmamonTopology#streamsConfig} — the same code {@code rdmamon streams}
 * runs — configured like it (defaults &lt; properties file &lt; RDMAMON_* environment &lt; {@code --set} flags).
 */
public final class StreamsReplay {
    private StreamsReplay() {
    }

    /**
     * The stream app's settings for a replay. Unless set otherwise, state stores are in memory: a replay's state is
     * thrown away at its end, so it need not be written to disk.
     */
    public static StreamsAppConfig config(Path file, Map<String, String> env, Map<String, String> overrides) {
        Map<String, Object> settings = ConfigLoader.load(StreamsAppConfig.CONFIG_DEF, file, env, overrides,
                StreamsAppConfig.KAFKA_PREFIX);
        settings.putIfAbsent(StreamsAppConfig.STATE_STORE_TYPE_CONFIG, "in_memory");
        return new StreamsAppConfig(settings);
    }

    /** A new replayer over a freshly built topology (no state shared with other replays). */
    public static Replayer replayer(StreamsAppConfig config, Replayer.Order order, MeterRegistry registry) {
        return new Replayer(RdmamonTopology.build(config, registry), RdmamonTopology.streamsConfig(config),
                topics(config), order, registry);
    }

    public static ReplayTopics topics(StreamsAppConfig config) {
        StreamsAppConfig.TopicNames t = config.topics();
        return new ReplayTopics(t.jobs(), t.portSamples(), t.hostSamples(), t.gpuSamples(), t.alerts(), t.jobBandwidth(),
                t.linkHealth(), t.deadLetter());
    }
}
