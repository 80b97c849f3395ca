package io.rdmamon.scenario;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code rdmamon simulate --scenario NAME|all --out DIR [--seed N]}: writes a labelled scenario's records and ground
 * truth (see {@link ScenarioFiles}); with {@code all}, one subfolder per scenario, ready for {@code rdmamon evaluate}.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = "Write labelled scenarios: port and host samples, job records, ground truth.")
public final class SimulateCommand implements Callable<Integer> {

    @Option(names = "--scenario", description = "Scenario name, or 'all' (one subfolder each). --list shows them.")
    String scenario;

    @Option(names = "--out", description = "Output folder.")
    Path out;

    @Option(names = "--seed", defaultValue = "1",
            description = "Seed for noise and arrival jitter (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--list", description = "List the scenarios with their descriptions and exit.")
    boolean list;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = spec.commandLine().getOut();
        if (list) {
            for (String name : ScenarioCatalog.names()) {
                stdout.printf("%-20s %s%n", name, ScenarioCatalog.get(name).description());
            }
            stdout.flush();
            return 0;
        }
        if (scenario == null || out == null) {
            throw new IllegalArgumentException("--scenario and --out are required (or --list)");
        }
        List<String> names = "all".equals(scenario) ? ScenarioCatalog.names() : List.of(scenario);
        for (String name : names) {
            ScenarioSpec scenarioSpec = ScenarioCatalog.get(name);
            Path dir = names.size() == 1 && !"all".equals(scenario) ? out : out.resolve(name);
            ScenarioRecorder.Recording recording = ScenarioRecorder.record(scenarioSpec, seed);
            ScenarioFiles.write(recording, dir);
            spec.commandLine().getErr().printf(
                    "%s: %d port samples, %d host samples, %d job records, %d incidents -> %s%n", name,
                    recording.portSamples().size(), recording.hostSamples().size(), recording.jobs().size(),
                    recording.truth().incidents().size(), dir);
        }
        return 0;
    }
}
