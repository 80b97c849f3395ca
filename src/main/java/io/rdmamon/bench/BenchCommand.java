package io.rdmamon.bench;

import io.rdmamon.config.Durations;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code rdmamon bench}: the benchmarks whose figures docs/performance.md quotes; each prints its figures. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Run a benchmark and print its figures (docs/performance.md).",
        subcommands = {BenchCommand.Collector.class, BenchCommand.Publish.class, SinkBenchmark.class,
                SizingBenchmark.class, StreamsBenchmark.class, StreamsBenchmark.RawConsumer.class,
                FailoverBenchmark.class})
public final class BenchCommand {

    @Command(name = "collector", mixinStandardHelpOptions = true,
            description = {"CPU time per sampling pass on a simulated node, and bytes per record (in-process).",
                    "With --process: the real collector as a process of its own, publishing to a broker, beside "
                            + "node_exporter's infiniband collector on the same tree; CPU per pass and resident "
                            + "memory of both from /proc.",
                    "With --gpu, on a GPU machine: the GPU source's CPU per interval in-process (beside the process "
                            + "--beside starts, e.g. pynvml reading the same fields), then the collector's CPU per "
                            + "pass with GPUs and without, two processes side by side; all from /proc."})
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

        @Option(names = "--process", description = "Measure the whole collector process beside node_exporter.")
        boolean process;

        @Option(names = "--interval", defaultValue = "1s", converter = Durations.Converter.class,
                description = "--process: sampling and scrape interval (default ${DEFAULT-VALUE}).")
        Duration interval;

        @Option(names = "--warmup-time", defaultValue = "30s", converter = Durations.Converter.class,
                description = "--process: time before measuring (default ${DEFAULT-VALUE}).")
        Duration warmupTime;

        @Option(names = "--time", defaultValue = "60s", converter = Durations.Converter.class,
                description = "--process: time measured (default ${DEFAULT-VALUE}).")
        Duration time;

        @Option(names = "--jvm", paramLabel = "OPTIONS",
                description = "--process: JVM options instead of collector/jvm.options, e.g. \"-Xmx64m\".")
        String jvm;

        @Option(names = "--full-classpath", description = "--process: run on all of rdmamon's jars, not the "
                + "collector's.")
        boolean fullClassPath;

        @Option(names = "--node-exporter", defaultValue = "prometheus-node-exporter", paramLabel = "BINARY",
                description = "--process: node_exporter to compare with (default ${DEFAULT-VALUE}; empty: none).")
        String nodeExporter;

        @Option(names = "--set", paramLabel = "KEY=VALUE", description = "--process, --gpu: a collector setting, "
                + "e.g. kafka.compression.type=none, collector.gpu.reader=nvidia-smi (repeatable).")
        List<String> settings = new ArrayList<>();

        @Option(names = "--gpu", description = "Measure what reading this machine's GPUs costs (GpuBenchmark).")
        boolean gpu;

        @Option(names = "--beside", paramLabel = "COMMAND", description = "--gpu: a command (bash -c) run during the "
                + "GPU source's measurement and measured over the same time, e.g. testbed/gpu/pynvml_reader.py.")
        String beside;

        @Option(names = "--gpu-source-only", description = "--gpu: skip the two collector processes.")
        boolean gpuSourceOnly;

        @Override
        public Integer call() throws Exception {
            if (gpu) {
                GpuBenchmark.run(new GpuBenchmark.Options(interval, warmupTime, time, settings, beside,
                        !gpuSourceOnly), spec.commandLine().getOut());
                return 0;
            }
            if (process) {
                List<String> jvmOptions = jvm == null ? io.rdmamon.collector.CollectorJvmOptions.load()
                        : ChildJvm.splitOptions(jvm);
                CollectorProcessBenchmark.run(new CollectorProcessBenchmark.Options(interval, warmupTime, time,
                        jvmOptions, fullClassPath, nodeExporter, settings), spec.commandLine().getOut());
                return 0;
            }
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
