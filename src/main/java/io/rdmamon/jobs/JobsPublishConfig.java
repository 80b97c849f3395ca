package io.rdmamon.jobs;

import io.rdmamon.config.ConfigLoader;
import io.rdmamon.model.Topics;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

import java.util.Map;

/** Settings of {@code rdmamon jobs publish}: {@code jobs.*} keys, plus {@code kafka.*} producer settings. */
public final class JobsPublishConfig extends AbstractConfig {
    public static final String KAFKA_PREFIX = "kafka.";

    public static final String BOOTSTRAP_SERVERS_CONFIG = "jobs.bootstrap.servers";
    public static final String DEFAULT_BOOTSTRAP_SERVERS = "localhost:9092";
    private static final String BOOTSTRAP_SERVERS_DOC = "Kafka brokers, host:port[,host:port...].";

    public static final String TOPIC_CONFIG = "jobs.topic";
    public static final String DEFAULT_TOPIC = Topics.JOBS;
    private static final String TOPIC_DOC = "Topic of job metadata (compacted, keyed by job uid).";

    public static final ConfigDef CONFIG_DEF = new ConfigDef()
            .define(BOOTSTRAP_SERVERS_CONFIG, Type.STRING, DEFAULT_BOOTSTRAP_SERVERS, new ConfigDef.NonEmptyString(),
                    Importance.HIGH, BOOTSTRAP_SERVERS_DOC)
            .define(TOPIC_CONFIG, Type.STRING, DEFAULT_TOPIC, new ConfigDef.NonEmptyString(), Importance.MEDIUM,
                    TOPIC_DOC);

    public JobsPublishConfig(Map<String, ?> originals) {
        super(CONFIG_DEF, originals, false);
    }

    public String bootstrapServers() {
        return getString(BOOTSTRAP_SERVERS_CONFIG);
    }

    public String topic() {
        return getString(TOPIC_CONFIG);
    }

    public Map<String, Object> kafkaOverrides() {
        return ConfigLoader.withPrefix(originals(), KAFKA_PREFIX);
    }
}
