package io.rdmamon.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Gathers a role's settings from, lowest precedence first: the {@link ConfigDef} defaults, a properties file, the
 * environment, and command-line flags. Every role validates the result with its own {@code ConfigDef}, so a bad value
 * fails at start with the key's name.
 *
 * <p>Environment: key {@code collector.interval.ms} is read from {@code RDMAMON_COLLECTOR_INTERVAL_MS}. Keys under a
 * pass-through prefix (e.g. {@code kafka.}) are taken from any {@code RDMAMON_KAFKA_*} variable: {@code
 * RDMAMON_KAFKA_SASL_JAAS_CONFIG} sets {@code kafka.sasl.jaas.config}. Secrets can also stay in files through Kafka's
 * config providers ({@code kafka.config.providers=file} and {@code ${file:/path:key}} values).
 */
public final class ConfigLoader {
    public static final String ENV_PREFIX = "RDMAMON_";

    private ConfigLoader() {
    }

    public static Map<String, Object> load(ConfigDef def, Path file, Map<String, String> env,
                                           Map<String, ?> flags, String... passThroughPrefixes) {
        Map<String, Object> merged = new HashMap<>();
        if (file != null) {
            Map<String, Object> fromFile = readProperties(file);
            rejectUnknown(def, fromFile.keySet(), "in " + file, passThroughPrefixes);
            merged.putAll(fromFile);
        }
        rejectUnknown(def, flags.keySet(), "on the command line", passThroughPrefixes);
        for (String key : def.names()) {
            String value = env.get(envName(key));
            if (value != null) {
                merged.put(key, value);
            }
        }
        for (String prefix : passThroughPrefixes) {
            String envPrefix = envName(prefix);
            env.forEach((name, value) -> {
                if (name.startsWith(envPrefix) && name.length() > envPrefix.length()) {
                    String rest = name.substring(envPrefix.length()).toLowerCase(Locale.ROOT).replace('_', '.');
                    merged.put(prefix + rest, value);
                }
            });
        }
        flags.forEach((key, value) -> {
            if (value != null) {
                merged.put(key, value);
            }
        });
        return merged;
    }

    /**
     * A misspelt key would otherwise be ignored and its default used without a word. Environment variables are not
     * checked: the environment holds much else that merely shares the prefix.
     */
    private static void rejectUnknown(ConfigDef def, Collection<String> keys, String where,
                                      String... passThroughPrefixes) {
        List<String> unknown = keys.stream()
                .filter(key -> !def.names().contains(key))
                .filter(key -> Arrays.stream(passThroughPrefixes).noneMatch(key::startsWith))
                .sorted().toList();
        if (!unknown.isEmpty()) {
            throw new ConfigException("unknown setting" + (unknown.size() > 1 ? "s " : " ") + String.join(", ", unknown)
                    + " " + where + "; 'rdmamon config show ROLE' lists the keys"
                    + (passThroughPrefixes.length > 0 ? ", and Kafka client settings go under "
                    + String.join(" or ", passThroughPrefixes) : ""));
        }
    }

    /** {@code collector.interval.ms} → {@code RDMAMON_COLLECTOR_INTERVAL_MS}. */
    public static String envName(String key) {
        return ENV_PREFIX + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** The settings under {@code prefix} with the prefix removed, e.g. {@code kafka.acks} → {@code acks}. */
    public static Map<String, Object> withPrefix(Map<String, ?> originals, String prefix) {
        Map<String, Object> out = new HashMap<>();
        originals.forEach((key, value) -> {
            if (key.startsWith(prefix)) {
                out.put(key.substring(prefix.length()), value);
            }
        });
        return out;
    }

    private static Map<String, Object> readProperties(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new ConfigException("configuration file " + file + " does not exist or is not a file");
        }
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            props.load(reader);
        } catch (IOException | IllegalArgumentException e) {
            throw new ConfigException("cannot read configuration file " + file + ": " + e.getMessage());
        }
        Map<String, Object> out = new HashMap<>();
        props.stringPropertyNames().forEach(name -> out.put(name, props.getProperty(name).trim()));
        return out;
    }
}
