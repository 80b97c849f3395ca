package io.rdmamon.scenario;

import io.rdmamon.model.Json;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A scenario folder: {@value #SAMPLES} ({@code rdma.port-samples} records), {@value #HOST_SAMPLES}
 * ({@code rdma.host-samples}), {@value #JOBS} ({@code rdma.jobs}), where the recording has GPU telemetry
 * {@value #GPU_SAMPLES} ({@code rdma.gpu-samples}) — JSON lines exactly as on the topics, in arrival order — and
 * {@value #TRUTH}, the {@link GroundTruth}.
 */
public final class ScenarioFiles {
    public static final String SAMPLES = "samples.jsonl";
    public static final String HOST_SAMPLES = "host-samples.jsonl";
    public static final String JOBS = "jobs.jsonl";
    public static final String GPU_SAMPLES = "gpu-samples.jsonl";
    public static final String TRUTH = "truth.json";

    private ScenarioFiles() {
    }

    public static void write(ScenarioRecorder.Recording recording, Path dir) throws IOException {
        Files.createDirectories(dir);
        writeLines(dir.resolve(SAMPLES), recording.portSamples());
        writeLines(dir.resolve(HOST_SAMPLES), recording.hostSamples());
        writeLines(dir.resolve(JOBS), recording.jobs());
        if (!recording.gpuSamples().isEmpty()) {
            writeLines(dir.resolve(GPU_SAMPLES), recording.gpuSamples());
        }
        Files.writeString(dir.resolve(TRUTH),
                Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(recording.truth()) + "\n",
                StandardCharsets.UTF_8);
    }

    public static GroundTruth readTruth(Path dir) throws IOException {
        return Json.MAPPER.readValue(dir.resolve(TRUTH).toFile(), GroundTruth.class);
    }

    /** Whether {@code dir} holds a scenario (has a truth file and samples). */
    public static boolean isScenario(Path dir) {
        return Files.isRegularFile(dir.resolve(TRUTH)) && Files.isRegularFile(dir.resolve(SAMPLES));
    }

    private static void writeLines(Path file, List<?> records) throws IOException {
        try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (Object record : records) {
                out.write(Json.toString(record));
                out.write('\n');
            }
        }
    }
}
