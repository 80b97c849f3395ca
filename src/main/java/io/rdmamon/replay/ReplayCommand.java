package io.rdmamon.replay;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.streams.StreamsAppConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code rdmamon replay}: the stream app over recorded topic files, in event time, as fast as the machine goes.
 * Alerts go to stdout as JSON lines; with {@code --out} also every output topic to files ({@link ReplayFiles}).
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = "Run the stream app over recorded samples and job records; print the alerts (JSON lines).")
public final class ReplayCommand implements Callable<Integer> {

    @Option(names = "--samples", required = true, description = "Port samples (rdma.port-samples), JSON lines.")
    Path samples;

    @Option(names = "--host-samples", description = "Host interface samples (rdma.host-samples), JSON lines.")
    Path hostSamples;

    @Option(names = "--gpu-samples", description = "GPU samples (rdma.gpu-samples), JSON lines.")
    Path gpuSamples;

    @Option(names = "--jobs", required = true, description = "Job records (rdma.jobs), JSON lines.")
    Path jobs;

    @Option(names = "--out", description = "Also write alerts, job bandwidth, link health and dead letters here.")
    Path out;

    @Option(names = "--order", defaultValue = "arrival", converter = OrderConverter.class,
            description = "arrival: each file in its line order, files interleaved by timestamp (default); "
                    + "time: everything sorted by timestamp (for dumps concatenated partition by partition).")
    Replayer.Order order;

    @Mixin
    StreamsSettings settings;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        StreamsAppConfig appConfig = settings.load();
        List<Replayer.Input> inputs = new ArrayList<>();
        inputs.add(new Replayer.Input(InputKind.JOBS, readable("--jobs", jobs)));
        inputs.add(new Replayer.Input(InputKind.PORT_SAMPLES, readable("--samples", samples)));
        if (hostSamples != null) {
            inputs.add(new Replayer.Input(InputKind.HOST_SAMPLES, readable("--host-samples", hostSamples)));
        }
        if (gpuSamples != null) {
            inputs.add(new Replayer.Input(InputKind.GPU_SAMPLES, readable("--gpu-samples", gpuSamples)));
        }
        Replayer.Summary summary;
        try (ReplayFiles files = new ReplayFiles(spec.commandLine().getOut(), out, StreamsReplay.topics(appConfig))) {
            summary = StreamsReplay.replayer(appConfig, order, new SimpleMeterRegistry()).run(inputs, files);
        }
        spec.commandLine().getErr().printf("replayed %d records (%s .. %s), skipped %d bad lines; outputs %s%n",
                summary.records(), instant(summary.firstTimestamp()), instant(summary.lastTimestamp()),
                summary.skippedLines(), summary.outputs());
        spec.commandLine().getErr().flush();
        return 0;
    }

    private static Path readable(String option, Path file) {
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new IllegalArgumentException(option + ": " + file + " is not a readable file");
        }
        return file;
    }

    private static String instant(Long ms) {
        return ms == null ? "-" : Instant.ofEpochMilli(ms).toString();
    }

    /** {@code arrival} / {@code time}, case-insensitive. */
    static final class OrderConverter implements picocli.CommandLine.ITypeConverter<Replayer.Order> {
        @Override
        public Replayer.Order convert(String value) {
            return Replayer.Order.valueOf(value.trim().toUpperCase(java.util.Locale.ROOT));
        }
    }
}
