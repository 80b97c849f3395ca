package io.rdmamon.replay;

import io.rdmamon.streams.StreamsAppConfig;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/** The stream app settings options of the commands that replay ({@code replay}, {@code evaluate}): a picocli mixin. */
public final class StreamsSettings {

    @Option(names = "--config", description = "Stream app properties file (detector thresholds, windows).")
    Path config;

    @Option(names = "--set", description = "Override a stream app setting, e.g. --set streams.window.size.ms=5000.")
    Map<String, String> overrides = new TreeMap<>();

    /** Defaults &lt; {@code --config} file &lt; RDMAMON_* environment &lt; {@code --set}. */
    public StreamsAppConfig load() {
        return StreamsReplay.config(config, System.getenv(), overrides);
    }
}
