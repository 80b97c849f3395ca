package io.rdmamon.config;

import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** The configuration flags every role shares: {@code --config FILE} and repeated {@code --set key=value}. */
public final class ConfigOptions {
    @Option(names = {"-c", "--config"}, paramLabel = "FILE", description = "Properties file (keys as in 'rdmamon config show').")
    public Path file;

    @Option(names = {"-s", "--set"}, paramLabel = "KEY=VALUE",
            description = "Override one setting, e.g. --set influx.url=http://influx:8086 (repeatable).")
    public Map<String, String> overrides = new LinkedHashMap<>();

    /**
     * The settings given on the command line: the {@code --set} values, then the named flags (such as
     * {@code --bootstrap-servers}) that were given. A named flag left out is null and leaves the {@code --set} value
     * of its key in force.
     */
    public Map<String, Object> withNamedFlags(Map<String, ?> namedFlags) {
        Map<String, Object> merged = new LinkedHashMap<>(overrides);
        namedFlags.forEach((key, value) -> {
            if (value != null) {
                merged.put(key, value);
            }
        });
        return merged;
    }
}
