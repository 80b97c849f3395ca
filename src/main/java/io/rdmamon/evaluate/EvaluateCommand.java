package io.rdmamon.evaluate;

import io.rdmamon.config.Durations;
import io.rdmamon.model.Json;
import io.rdmamon.replay.StreamsSettings;
import io.rdmamon.streams.StreamsAppConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code rdmamon evaluate --scenarios DIR}: replays every scenario folder through the stream app and prints, per
 * scenario and per alert type, true positives, false positives, misses and detection latency.
 */
@Command(name = "evaluate", mixinStandardHelpOptions = true,
        description = "Replay labelled scenarios through the stream app and score its alerts against ground truth.")
public final class EvaluateCommand implements Callable<Integer> {

    @Option(names = "--scenarios", required = true,
            description = "Folder of scenario folders (rdmamon simulate --scenario all --out DIR), or one scenario.")
    Path scenarios;

    @Option(names = "--slack", defaultValue = "60s", converter = Durations.Converter.class,
            description = "A detection still counts this long after an incident's end (default ${DEFAULT-VALUE}).")
    Duration slack;

    @Option(names = "--json", description = "Print the report as JSON instead of tables.")
    boolean json;

    @Option(names = "--strict", description = "Exit 1 when there is any false positive, miss or late"
            + " detection (later than an incident's maxLatencyMs).")
    boolean strict;

    @Option(names = "--no-gpu-samples", description = "Replay no scenario's gpu-samples.jsonl: the traces as a "
            + "cluster without the GPU source sees them.")
    boolean noGpuSamples;

    @Option(names = "--threads", defaultValue = "2",
            description = "Scenarios replayed at once (default ${DEFAULT-VALUE}).")
    int threads;

    @Mixin
    StreamsSettings settings;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        StreamsAppConfig appConfig = settings.load();
        List<Path> dirs = ScenarioEvaluator.scenarioDirs(scenarios);
        if (dirs.isEmpty()) {
            throw new IllegalArgumentException("no scenario folders (with truth.json and samples.jsonl) under "
                    + scenarios);
        }
        ScenarioEvaluator evaluator = ScenarioEvaluator.of(appConfig, slack.toMillis(), threads);
        EvaluationReport report = (noGpuSamples ? evaluator.withoutGpuSamples() : evaluator).evaluate(dirs);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(report));
            out.flush();
        } else {
            report.printTable(out);
        }
        return strict && (report.totalFalsePositives() > 0 || report.totalMisses() > 0 || report.totalLate() > 0)
                ? 1 : 0;
    }
}
