package io.rdmamon.sink;

import io.rdmamon.config.ConfigOptions;
import io.rdmamon.config.Durations;
import io.rdmamon.influx.InfluxSettings;
import io.rdmamon.influx.InfluxSetup;
import io.rdmamon.influx.SchemaDoc;
import org.influxdb.InfluxDB;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;

/** {@code rdmamon influx init | schema}: set up an InfluxDB 1.x database for rdmamon, print the schema. */
@Command(name = "influx", mixinStandardHelpOptions = true, description = "InfluxDB set-up and schema.",
        subcommands = {InfluxCommand.Init.class, InfluxCommand.SchemaTable.class})
public final class InfluxCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getErr());
    }

    @Command(name = "init", mixinStandardHelpOptions = true,
            description = "Create the database, retention policies (raw default, 1-minute rollups) and continuous "
                    + "queries on InfluxDB 1.x. Idempotent: safe to run on every deployment.")
    static final class Init implements Callable<Integer> {
        @Mixin
        ConfigOptions options;

        @Option(names = "--backfill", paramLabel = "DURATION", converter = Durations.Converter.class,
                description = "Also recompute the rollups of the last DURATION (e.g. 6h) after an outage.")
        Duration backfill;

        @Option(names = "--print", description = "Print the InfluxQL statements instead of running them.")
        boolean print;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            // the sink's own file (and environment): compose, the chart and the manifests run
            // 'influx init --config sink.properties', which also holds the sink's other keys and kafka.*
            InfluxSettings settings = SinkConfig.load(options.file, System.getenv(), options.overrides).influx();
            PrintWriter out = spec.commandLine().getOut();
            if (print) {
                new InfluxSetup(null, settings).statements().forEach(s -> out.println(s + ";"));
                out.flush();
                return 0;
            }
            try (InfluxDB influx = settings.connect()) {
                InfluxSetup setup = new InfluxSetup(influx, settings);
                setup.apply();
                if (backfill != null) {
                    setup.backfill(backfill);
                }
            }
            return 0;
        }
    }

    @Command(name = "schema", mixinStandardHelpOptions = true,
            description = "Print the measurements, tags and fields rdmamon writes (Markdown).")
    static final class SchemaTable implements Runnable {
        @Spec
        CommandSpec spec;

        @Override
        public void run() {
            spec.commandLine().getOut().print(SchemaDoc.markdown());
            spec.commandLine().getOut().flush();
        }
    }
}
