package io.rdmamon.bench;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code rdmamon bench}: the benchmarks whose figures the README quotes; each prints its figures. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Run a benchmark and print its figures (README, section Figures).",
        subcommands = {BenchCommand.Collector.class, BenchCommand.Publish.class, SinkBenchmark.class,
                SizingBenchmark.class, StreamsBenchmark.class, StreamsBenchmark.RawConsumer.class})
public final class BenchCommand {

    @Command(name = "collector", mixinStandardHelpOptions = true,
            description = "CPU time per sampling pass on a simulated node, and bytes per record.")
    static final class Collector implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--devices", defaultValue = "8", description = "RDMA devices (default ${DEFAULT-VALUE}).")
        int devices;

        @Option(names = "--ports", defaultValue = "2", description = "Ports per device (default ${DEFAULT-VALUE}).")
        int ports;

        @Option(names = "--passes", defaultValue = "1000", description = "Measured passes (default ${DEFAULT-VALUE}).")
        int passes;

        @Option(names = "--warmup", defaultValue = "300", description = "Warm-up passes (default ${DEFAULT-VALUE}).")
        int warmup;

        @Override
        public Integer call() throws Exception {
            CollectorBenchmark.run(devices, ports, warmup, passes, spec.commandLine().getOut());
            return 0;
        }
    }

    @Command(name = "publish", mixinStandardHelpOptions = true,
            description = "Records per second through the collector's Kafka sink into a real broker (in-process unless "
                    + "--bootstrap-servers), bytes per record, compressed bytes per record.")
    static final class Publish implements Callable<Integer> {
        @Option(names = "--records", defaultValue = "200000", description = "Records to send (default ${DEFAULT-VALUE}).")
        int records;

        @Option(names = "--bootstrap-servers", description = "An existing broker; default: an in-process one.")
        String bootstrap;

        @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Override a collector/kafka setting.")
        java.util.Map<String, String> overrides = new java.util.HashMap<>();

        @Override
        public Integer call() throws Exception {
            PublishBenchmark.run(bootstrap, records, new java.util.HashMap<>(overrides),
                    System.out);
            return 0;
        }
    }
}
