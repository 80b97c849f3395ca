package io.rdmamon.deploy;

import io.rdmamon.cli.ConfigCommand;
import io.rdmamon.config.ConfigLoader;
import io.rdmamon.influx.InfluxSettings;
import io.rdmamon.streams.StreamsAppConfig;
import org.apache.kafka.common.config.ConfigDef;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the code reads, per role, straight from its {@link ConfigDef}s: the valid keys, the environment variable of
 * each ({@link ConfigLoader#envName}), the {@code kafka.} pass-through, and the default metrics port.
 */
record RoleSettings(String role, ConfigDef def, boolean kafkaPassThrough, boolean readsNodeName) {
    static final String KAFKA_PREFIX = "kafka.";
    static final String KAFKA_ENV_PREFIX = ConfigLoader.envName(KAFKA_PREFIX);

    /**
     * The role a container runs, from its image and arguments ({@code streams}, {@code jobs watch}, {@code influx
     * init}...); empty for images that are not rdmamon's.
     */
    static String roleOf(String image, List<String> args) {
        if (!image.startsWith("rdmamon-")) {
            return "";
        }
        if (image.startsWith("rdmamon-collector")) {
            return "collector";
        }
        if (args.isEmpty()) {
            return "streams";
        }
        String first = args.get(0);
        return (first.equals("jobs") || first.equals("influx")) && args.size() > 1 ? first + " " + args.get(1) : first;
    }

    /** Empty when this checkout's code does not define the role (e.g. {@code jobs watch} before it is merged). */
    static Optional<RoleSettings> of(String role) {
        Map<String, ConfigCommand.Role> documented = ConfigCommand.roles();
        return switch (role) {
            case "collector", "sink", "alerts" -> Optional.of(new RoleSettings(role, documented.get(role).def(), true,
                    role.equals("collector")));
            case "jobs watch" -> Optional.ofNullable(documented.get("jobs-watch"))
                    .map(r -> new RoleSettings(role, r.def(), true, false));
            case "streams" -> Optional.of(new RoleSettings(role, StreamsAppConfig.CONFIG_DEF, true, false));
            case "influx init" -> Optional.of(new RoleSettings(role, InfluxSettings.define(new ConfigDef()), false,
                    false));
            case "demo" -> Optional.of(new RoleSettings(role, new ConfigDef(), false, false));
            default -> throw new IllegalArgumentException("no such rdmamon role: " + role);
        };
    }

    /** The properties file a ConfigMap ships for the role ({@code jobs-watch.properties} for {@code jobs watch}). */
    static String roleOfFile(String fileName) {
        String base = fileName.replace(".properties", "");
        return base.equals("jobs-watch") ? "jobs watch" : base;
    }

    Set<String> environmentNames() {
        return def.names().stream().map(ConfigLoader::envName).collect(Collectors.toSet());
    }

    boolean readsVariable(String name) {
        return environmentNames().contains(name)
                || kafkaPassThrough && name.startsWith(KAFKA_ENV_PREFIX) && name.length() > KAFKA_ENV_PREFIX.length()
                || readsNodeName && name.equals("NODE_NAME");
    }

    boolean readsKey(String key) {
        return def.names().contains(key) || kafkaPassThrough && key.startsWith(KAFKA_PREFIX);
    }

    /** The default of {@code metrics.port} (or {@code streams.metrics.port}); empty for roles without metrics. */
    Optional<Integer> metricsPort() {
        return def.configKeys().values().stream()
                .filter(k -> k.name.equals("metrics.port") || k.name.equals("streams.metrics.port"))
                .map(k -> (Integer) k.defaultValue)
                .findFirst();
    }
}
