package io.rdmamon.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/** A command line naming a role builds only that role; everything else still finds every subcommand. */
class MainTest {

    @Test
    void shouldRegisterEachSubcommandUnderItsOwnName() {
        Main.Subcommands.ALL.forEach((name, command) -> {
            CommandLine.Command annotation = command.get().getClass().getAnnotation(CommandLine.Command.class);
            assertThat(annotation.name()).as("the @Command name of %s", name).isEqualTo(name);
        });
    }

    @Test
    void shouldBuildOnlyTheRoleTheCommandLineNames() {
        CommandLine cmd = Main.commandLine(new String[]{"streams", "--help"});

        assertThat(cmd.getSubcommands()).containsOnlyKeys("streams");
    }

    @Test
    void shouldBuildEveryRoleForHelpNoCommandOrAnUnknownOne() {
        assertThat(Main.commandLine(new String[0]).getSubcommands()).containsOnlyKeys(Main.Subcommands.ALL.keySet());
        assertThat(Main.commandLine(new String[]{"--help"}).getSubcommands())
                .containsOnlyKeys(Main.Subcommands.ALL.keySet());
        assertThat(Main.commandLine(new String[]{"strems"}).getSubcommands())
                .containsOnlyKeys(Main.Subcommands.ALL.keySet());
    }

    @Test
    void shouldPrintARolesUsageThroughTheHelpCommand() {
        StringWriter out = new StringWriter();
        CommandLine cmd = Main.commandLine(new String[]{"help", "streams"});
        cmd.setOut(new PrintWriter(out));

        int exit = cmd.execute("help", "streams");

        assertThat(exit).isZero();
        assertThat(out.toString()).startsWith("Usage: rdmamon streams");
    }

    @Test
    void shouldListEveryRoleInTheTopLevelUsage() {
        String usage = Main.commandLine(new String[]{"--help"}).getUsageMessage();

        assertThat(usage).contains("collector", "streams", "sink", "alerts", "jobs", "demo", "evaluate")
                .doesNotContain("testbed");
    }
}
