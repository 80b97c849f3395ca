package io.rdmamon.cli;

import org.apache.kafka.common.config.ConfigException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code rdmamon}: one binary, several roles; each subcommand is a small class over the shared packages. */
@Command(name = "rdmamon", mixinStandardHelpOptions = true, version = "rdmamon 0.1.0",
        description = "Event-driven RDMA traffic monitoring for multi-node GPU training clusters.",
        subcommands = {CommandLine.HelpCommand.class, io.rdmamon.scenario.SimulateCommand.class,
                io.rdmamon.replay.ReplayCommand.class, io.rdmamon.evaluate.EvaluateCommand.class})
public final class Main {

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    public static CommandLine commandLine() {
        CommandLine cmd = new CommandLine(new Main());
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
