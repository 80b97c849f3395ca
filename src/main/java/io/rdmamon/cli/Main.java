package io.rdmamon.cli;

import io.rdmamon.alerts.AlertsCommand;
import io.rdmamon.bench.BenchCommand;
import io.rdmamon.capacity.CapacityCommand;
import io.rdmamon.collector.CollectorCommand;
import io.rdmamon.demo.DemoCommand;
import io.rdmamon.influx.InfluxCommand;
import io.rdmamon.evaluate.EvaluateCommand;
import io.rdmamon.replay.ReplayCommand;
import io.rdmamon.scenario.SimulateCommand;
import io.rdmamon.sink.SinkCommand;
import io.rdmamon.jobs.JobsCommand;
import io.rdmamon.streams.StreamsCommand;
import org.apache.kafka.common.config.ConfigException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code rdmamon}: one binary, several roles; each subcommand is a small class over the shared packages. */
@Command(name = "rdmamon", mixinStandardHelpOptions = true, version = "rdmamon 0.1.0",
        description = "Event-driven RDMA traffic monitoring for multi-node GPU training clusters.",
        subcommands = {
                CommandLine.HelpCommand.class,
                CollectorCommand.class,
                StreamsCommand.class,
                JobsCommand.class,
                AlertsCommand.class,
                BenchCommand.class,
                ConfigCommand.class,
                DemoCommand.class,
                SimulateCommand.class,
                SinkCommand.class,
                InfluxCommand.class,
                CapacityCommand.class,
                ReplayCommand.class,
                EvaluateCommand.class,
                TestbedCommand.class,
        })
public final class Main {

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    public static CommandLine commandLine() {
        return withConfigErrors(new CommandLine(new Main()));
    }

    /**
     * A configuration error ends the command with exit code 2 and one line, not a stack trace. Loading this class
     * loads none of the subcommands (the collector's own entry point relies on that: its class path lacks theirs).
     */
    public static CommandLine withConfigErrors(CommandLine cmd) {
        cmd.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            if (ex instanceof ConfigException || ex instanceof IllegalArgumentException) {
                commandLine.getErr().println("rdmamon: configuration error: " + ex.getMessage());
                return 2;
            }
            throw ex;
        });
        return cmd;
    }
}
