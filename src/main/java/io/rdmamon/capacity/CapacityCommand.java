package io.rdmamon.capacity;

import io.rdmamon.config.ConfigOptions;
import io.rdmamon.influx.InfluxSettings;
import io.rdmamon.model.Json;
import org.influxdb.InfluxDB;
import org.influxdb.InfluxDBException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code rdmamon capacity --since 7d}: per link and node utilisation percentiles, peak hour and headroom, allocated
 * but idle links, the busiest jobs and hours, computed by InfluxDB with {@link CapacityQueries}. Text tables on
 * stdout, or the {@link CapacityReport} as JSON with {@code --json}.
 */
@Command(name = "capacity", mixinStandardHelpOptions = true,
        description = "Capacity planning report from InfluxDB: utilisation percentiles, headroom, peak hours, "
                + "allocated-but-idle links, busiest jobs.")
public final class CapacityCommand implements Callable<Integer> {
    @Mixin
    ConfigOptions options;

    @Option(names = "--since", paramLabel = "DURATION",
            description = "Look back this far (default " + CapacityConfig.DEFAULT_SINCE + ", e.g. 30d).")
    String since;

    @Option(names = "--influx-url", paramLabel = "URL", description = "InfluxDB base URL (influx.url).")
    String influxUrl;

    @Option(names = "--raw", description = "Read raw points instead of the 1-minute rollups.")
    boolean raw;

    @Option(names = "--idle-below", paramLabel = "FRACTION",
            description = "Idle threshold for allocated links (default " + CapacityConfig.DEFAULT_IDLE_BELOW + ").")
    Double idleBelow;

    @Option(names = "--top", paramLabel = "N", description = "How many busiest jobs to list (default "
            + CapacityConfig.DEFAULT_TOP_JOBS + ").")
    Integer top;

    @Option(names = "--json", description = "Print the report as JSON.")
    boolean json;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Map<String, Object> flags = new HashMap<>();
        flags.put(CapacityConfig.SINCE_CONFIG, since);
        flags.put(InfluxSettings.URL_CONFIG, influxUrl);
        flags.put(CapacityConfig.SOURCE_CONFIG, raw ? CapacityConfig.SOURCE_RAW : null);
        flags.put(CapacityConfig.IDLE_BELOW_CONFIG, idleBelow);
        flags.put(CapacityConfig.TOP_JOBS_CONFIG, top);
        CapacityConfig config = CapacityConfig.load(options.file, System.getenv(), options.withNamedFlags(flags));
        CapacityReport report;
        try (InfluxDB influx = config.influx().connect()) {
            report = new CapacityAnalysis(influx, config.influx().database(), config.queries(), config.idleBelow(),
                    config.topJobs(), config.topHours()).run();
        } catch (InfluxDBException e) {
            spec.commandLine().getErr().println("rdmamon capacity: cannot query InfluxDB at " + config.influx().url()
                    + " database " + config.influx().database() + ": " + e.getMessage());
            return 1;
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(json ? Json.toString(report) + "\n" : ReportText.render(report));
        out.flush();
        return 0;
    }
}
