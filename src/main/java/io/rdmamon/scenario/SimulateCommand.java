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
 * ready for {@code rdmamon evaluate}. {@code --from-trace DIR} does the same from real NCCL traces
 * ({@link TraceImporter}): one subfolder per trace, form and sampling phase.
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

    @Option(names = "--from-trace", paramLabel = "DIR", description = "Import real NCCL traces recorded by"
            + " testbed/nccl/record.sh instead: DIR is a trace or a folder of traces. One scenario folder per trace,"
            + " form and phase: <trace>-<form>-phase<ms>.")
    Path fromTrace;

    @Option(names = "--form", split = ",", defaultValue = "rdma,tcp", description = "With --from-trace: rdma (the"
            + " ranks' bytes on RDMA ports), tcp (the same bytes on eth0, RDMA idle: NCCL fell back to sockets)"
            + ", switch (RDMA for the first half of the trace, eth0 for the second) and/or socket (a job meant to run"
            + " over sockets, ACS P16EN: its eth0 carries the bytes plus 2-6 MB/s of other traffic)."
            + " Default ${DEFAULT-VALUE}.")
    List<String> forms;

    @Option(names = "--phases", split = ",", defaultValue = "0",
            description = "With --from-trace: where each import places the trace in event time, in ms (0-59999):"
                    + " whole seconds shift it against the detectors' windows, the rest is the collectors' sampling"
                    + " phase. E.g. 0,5250,10500,15750. Default ${DEFAULT-VALUE}.")
    List<Long> phases;

    @Option(names = "--jitter-ms", defaultValue = "50", description = "With --from-trace: each sample is read up"
            + " to this many ms late (0-499). Default ${DEFAULT-VALUE}.")
    long jitterMs;

    @Option(names = "--no-gpu-samples", description = "With --from-trace: leave out the GPU telemetry of traces"
            + " recorded with a GPU per rank (their ground truth then holds the network's deadlines), as a cluster"
            + " whose collectors read no GPUs sees them.")
    boolean noGpuSamples;

    @Option(names = "--no-process-activity", description = "With --from-trace: leave the GPU samples' process fields"
            + " (processCpuCores, processRead/WriteBytesPerSec, processStates) out of traces that recorded each rank's"
            + " process activity, as a collector that cannot read the GPU processes' /proc entries publishes them.")
    boolean noProcessActivity;

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
        if (fromTrace != null) {
            if (out == null || scenario != null) {
                throw new IllegalArgumentException("--from-trace needs --out and no --scenario");
            }
            return importTraces();
        }
        if (scenario == null || out == null) {
            throw new IllegalArgumentException("--scenario and --out are required (or --list, or --from-trace)");
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

    private int importTraces() throws Exception {
        List<Path> traces;
        if (NcclTrace.isTrace(fromTrace)) {
            traces = List.of(fromTrace);
        } else {
            try (var children = java.nio.file.Files.list(fromTrace)) {
                traces = children.filter(NcclTrace::isTrace).sorted().toList();
            }
        }
        if (traces.isEmpty()) {
            throw new IllegalArgumentException(fromTrace + " holds no trace (a folder with "
                    + NcclTrace.META + ", or folders of them)");
        }
        for (Path dir : traces) {
            NcclTrace trace = NcclTrace.read(dir);
            for (TraceImporter.Form form : forms.stream().map(TraceImporter.Form::of).toList()) {
                for (long phase : phases) {
                    ScenarioRecorder.Recording recording = TraceImporter.importTrace(trace, form, phase, jitterMs,
                            seed, trace.hasGpus() && !noGpuSamples,
                            trace.hasGpus() && !noGpuSamples && trace.hasProcesses() && !noProcessActivity);
                    Path target = out.resolve(TraceImporter.scenarioName(trace, form, phase));
                    ScenarioFiles.write(recording, target);
                    spec.commandLine().getErr().printf("%s: %d port samples, %d host samples, %d GPU samples, %d job"
                                    + " records, %d incidents -> %s%n", dir.getFileName(),
                            recording.portSamples().size(), recording.hostSamples().size(),
                            recording.gpuSamples().size(), recording.jobs().size(),
                            recording.truth().incidents().size(), target);
                }
            }
        }
        return 0;
    }
}
