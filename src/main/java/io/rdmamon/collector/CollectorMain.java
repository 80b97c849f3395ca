package io.rdmamon.collector;

import io.rdmamon.access.CommandErrors;
import picocli.CommandLine;

/**
 * The collector's own entry point: {@code rdmamon collector} without the other roles, so that its image and class
 * path hold only what the node agent runs (see {@code collector/Dockerfile}). Same options as {@code rdmamon
 * collector}.
 */
public final class CollectorMain {
    private CollectorMain() {
    }

    public static void main(String[] args) {
        // before any logger exists: the collector's logging is set up in code, not from logback.xml
        System.setProperty(CollectorLogging.PROPERTY, CollectorLogging.COLLECTOR);
        System.exit(CommandErrors.withConfigErrors(new CommandLine(new CollectorCommand())).execute(args));
    }
}
