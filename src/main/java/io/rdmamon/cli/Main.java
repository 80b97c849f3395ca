package io.rdmamon.cli;

import io.rdmamon.access.CommandErrors;
import io.rdmamon.alerts.AlertsCommand;
import io.rdmamon.bench.BenchCommand;
import io.rdmamon.capacity.CapacityCommand;
import io.rdmamon.collector.CollectorCommand;
import io.rdmamon.demo.DemoCommand;
import io.rdmamon.sink.InfluxCommand;
import io.rdmamon.evaluate.EvaluateCommand;
import io.rdmamon.replay.ReplayCommand;
import io.rdmamon.scenario.SimulateCommand;
import io.rdmamon.sink.SinkCommand;
import io.rdmamon.jobs.JobsCommand;
import io.rdmamon.streams.StreamsCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code rdmamon}: one binary, several roles; each subcommand is a small class over the shared packages.
 *
 * <p>The subcommands are added in code, not in {@code @Command(subcommands)}: picocli introspects every subcommand it
 * is given (its options, its mixins, its config class's static set-up), which cost each start of a role about 0.3 CPU
 * s and 0.4 s (four alternating cold starts, {@code new CommandLine} of all commands against the stream app's alone).
 * A command line naming a role builds only that role; help, no command or an unknown one builds them all.
 */
@Command(name = "rdmamon", mixinStandardHelpOptions = true, version = "rdmamon 0.1.0",
        description = "Event-driven RDMA traffic monitoring for multi-node GPU training clusters.")
public final class Main {

    /**
     * The subcommands by name, in the order help lists them: a class of its own, so that loading {@link Main} links
     * none of them.
     */
    static final class Subcommands {
        static final Map<String, Supplier<Object>> ALL = subcommands();

        private Subcommands() {
        }
    }

    private static Map<String, Supplier<Object>> subcommands() {
        Map<String, Supplier<Object>> commands = new LinkedHashMap<>();
        commands.put("help", CommandLine.HelpCommand::new);
        commands.put("collector", CollectorCommand::new);
        commands.put("streams", StreamsCommand::new);
        commands.put("jobs", JobsCommand::new);
        commands.put("alerts", AlertsCommand::new);
        commands.put("bench", BenchCommand::new);
        commands.put("config", ConfigCommand::new);
        commands.put("demo", DemoCommand::new);
        commands.put("simulate", SimulateCommand::new);
        commands.put("sink", SinkCommand::new);
        commands.put("influx", InfluxCommand::new);
        commands.put("capacity", CapacityCommand::new);
        commands.put("replay", ReplayCommand::new);
        commands.put("evaluate", EvaluateCommand::new);
        commands.put("testbed", TestbedCommand::new);
        return Collections.unmodifiableMap(commands);
    }

    public static void main(String[] args) {
        System.exit(commandLine(args).execute(args));
    }

    /** Every subcommand. */
    public static CommandLine commandLine() {
        return commandLine(new String[0]);
    }

    /** The command line for {@code args}: only the role they name, or every subcommand (help, none, unknown). */
    static CommandLine commandLine(String[] args) {
        CommandLine cmd = new CommandLine(new Main());
        String named = args.length == 0 ? null : args[0];
        boolean onlyNamed = Subcommands.ALL.containsKey(named) && !"help".equals(named);
        Subcommands.ALL.forEach((name, command) -> {
            if (!onlyNamed || name.equals(named)) {
                cmd.addSubcommand(name, command.get());
            }
        });
        return CommandErrors.withConfigErrors(cmd);
    }
}
