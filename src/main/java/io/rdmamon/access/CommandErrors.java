package io.rdmamon.access;

import org.apache.kafka.common.config.ConfigException;
import picocli.CommandLine;

/**
 * How a role's command ends on an error its operator must fix: one line and an exit code a supervisor can tell apart,
 * not a stack trace. Here, below every role, so that the collector's own entry point sets it up without the command
 * line of all roles ({@code cli}).
 */
public final class CommandErrors {
    private CommandErrors() {
    }

    /**
     * A configuration error ends the command with exit code 2 and one line, not a stack trace; so does Kafka refusing
     * the role's credentials or an ACL, with exit code 3.
     */
    public static CommandLine withConfigErrors(CommandLine cmd) {
        cmd.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            if (ex instanceof ConfigException || ex instanceof IllegalArgumentException) {
                commandLine.getErr().println("rdmamon: configuration error: " + ex.getMessage());
                return 2;
            }
            if (ex instanceof AccessRefusedException) {
                commandLine.getErr().println("rdmamon: " + ex.getMessage());
                return AccessRefusedException.EXIT_CODE;
            }
            throw ex;
        });
        return cmd;
    }
}
