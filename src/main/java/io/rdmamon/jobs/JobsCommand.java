package io.rdmamon.jobs;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code rdmamon jobs}: job metadata on topic rdma.jobs. */
@Command(name = "jobs", mixinStandardHelpOptions = true, description = "Job metadata (topic rdma.jobs).",
        subcommands = {JobsPublishCommand.class, io.rdmamon.jobs.k8s.JobsWatchCommand.class,
                CommandLine.HelpCommand.class})
public final class JobsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand (publish, watch)");
    }
}
