package io.rdmamon.scenario;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code rdmamon simulate --scenario NAME|all --out DIR [--seed N] [--runs K]}: writes a labelled scenario's records
 * and ground truth (see {@link ScenarioFiles}); with {@code all} or several runs, one subfolder per scenario and run,
 * ready for {@code rdmamon evaluate}.
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

    @Option(names = "--runs", defaultValue = "1", description = "Record each scenario this many times, with seeds"
            + " seed..seed+runs-1 (other noise, other fault times), into <scenario>-seed<N> folders.")
    int runs;

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
        if (runs < 1) {
            throw new IllegalArgumentException("--runs must be at least 1, got " + runs);
        }
        boolean all = "all".equals(scenario);
        List<String> names = all ? ScenarioCatalog.names() : List.of(scenario);
        for (String name : names) {
            for (long s = seed; s < seed + runs; s++) {
                String folder = runs == 1 ? name : name + "-seed" + s;
                Path dir = all || runs > 1 ? out.resolve(folder) : out;
                ScenarioRecorder.Recording recording = ScenarioRecorder.record(ScenarioCatalog.get(name, s));
                ScenarioFiles.write(recording, dir);
                spec.commandLine().getErr().printf(
                        "%s: %d port samples, %d host samples, %d job records, %d incidents -> %s%n", folder,
                        recording.portSamples().size(), recording.hostSamples().size(), recording.jobs().size(),
                        recording.truth().incidents().size(), dir);
            }
        }
        return 0;
    }
}
