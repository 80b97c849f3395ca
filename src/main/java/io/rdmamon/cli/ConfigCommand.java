package io.rdmamon.cli;

import io.rdmamon.alerts.AlertsConfig;
import io.rdmamon.collector.CollectorConfig;
import io.rdmamon.jobs.k8s.JobsWatchConfig;
import io.rdmamon.config.PropertiesDoc;
import io.rdmamon.sink.SinkConfig;
import io.rdmamon.streams.StreamsAppConfig;
import org.apache.kafka.common.config.ConfigDef;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.util.LinkedHashMap;
import java.util.Map;

/** {@code rdmamon config show ROLE}: prints a role's every setting with its default and doc, as a properties file. */
@Command(name = "config", description = "Print a role's configuration keys, defaults and docs as a properties file.",
        mixinStandardHelpOptions = true)
public final class ConfigCommand implements Runnable {
    /** Role name → its default file, title, definition and pass-through note. One entry per configurable role. */
    public static Map<String, Role> roles() {
        Map<String, Role> roles = new LinkedHashMap<>();
        roles.put("collector", new Role("collector/collector.properties", "rdmamon collector: default configuration", CollectorConfig.CONFIG,
                "Kafka producer settings pass through with the prefix kafka. (kafka.bootstrap.servers, "
                        + "kafka.security.protocol, kafka.sasl.jaas.config, kafka.ssl.truststore.location, ...)."));
        roles.put("streams", new Role("streams/streams.properties", "rdmamon streams: default configuration",
                StreamsAppConfig.CONFIG_DEF, "Kafka Streams, consumer and producer settings pass through with the prefix "
                + "kafka. (kafka.security.protocol, kafka.sasl.jaas.config, ...); processing.guarantee is "
                + "exactly_once_v2 unless overridden."));
        roles.put("alerts", new Role("streams/alerts.properties", "rdmamon alerts: default configuration", AlertsConfig.CONFIG,
                "Kafka consumer and producer settings pass through with the prefix kafka. (kafka.bootstrap.servers, "
                        + "kafka.security.protocol, kafka.sasl.jaas.config, ...)."));
        roles.put("sink", new Role("streams/sink.properties", "rdmamon sink: default configuration", SinkConfig.CONFIG,
                "Kafka consumer and producer settings pass through with the prefix kafka. (kafka.bootstrap.servers "
                        + "default localhost:9092, kafka.group.id default rdmamon-sink, kafka.max.poll.records default 5000, "
                        + "kafka.max.partition.fetch.bytes default 4194304, "
                        + "kafka.security.protocol, ...; kafka.enable.auto.commit is always false). "
                        + "rdmamon influx init reads the influx.* keys of the same file."));
        roles.put("jobs-watch", new Role("streams/jobs-watch.properties", "rdmamon jobs watch: default configuration",
                JobsWatchConfig.CONFIG, "Kafka producer and consumer settings pass through with the prefix kafka. "
                + "(kafka.bootstrap.servers, kafka.security.protocol, kafka.sasl.jaas.config, ...); acks=all and "
                + "idempotence are always on."));
        return roles;
    }

    /** {@code file}: where the repository ships this role's default configuration. */
    public record Role(String file, String title, ConfigDef def, String passThroughNote) {
        String render() {
            return PropertiesDoc.render(title, def, passThroughNote);
        }
    }

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", description = "show")
    String action;

    @Parameters(index = "1", description = "Role: ${COMPLETION-CANDIDATES}", completionCandidates = RoleNames.class)
    String role;

    @Override
    public void run() {
        if (!"show".equals(action)) {
            throw new IllegalArgumentException("unknown action '" + action + "': use 'config show ROLE'");
        }
        Role r = roles().get(role);
        if (r == null) {
            throw new IllegalArgumentException("unknown role '" + role + "': one of " + roles().keySet());
        }
        spec.commandLine().getOut().print(r.render());
        spec.commandLine().getOut().flush();
    }

    static final class RoleNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return roles().keySet().iterator();
        }
    }
}
