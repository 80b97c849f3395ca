package io.rdmamon.evaluate;

import io.rdmamon.model.Alert;
import io.rdmamon.model.GpuSample;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.Json;
import io.rdmamon.replay.StreamsReplay;
import io.rdmamon.scenario.GroundTruth;
import io.rdmamon.scenario.Incident;
import io.rdmamon.scenario.ScenarioCatalog;
import io.rdmamon.scenario.ScenarioFiles;
import io.rdmamon.scenario.ScenarioRecorder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A scenario folder's gpu-samples.jsonl is replayed by the evaluator, and left out on request: the {@code hang}
 * scenario with one GPU per node of the hung job, busy with memory traffic while it trains and waiting in a
 * collective (100 % / 0 %) from the hang on.
 */
class EvaluateGpuSamplesTest {
    @TempDir
    Path dir;

    @Test
    void shouldReplayAScenariosGpuSamplesUnlessToldNotTo() throws IOException {
        ScenarioFiles.write(ScenarioRecorder.record(ScenarioCatalog.get("hang", 1)), dir);
        GroundTruth truth = ScenarioFiles.readTruth(dir);
        Incident hang = truth.incidents().stream().filter(i -> i.type().equals(Alert.STALLED_SYNC)).findFirst()
                .orElseThrow();
        TreeSet<String> nodes = new TreeSet<>();
        for (String line : Files.readAllLines(dir.resolve(ScenarioFiles.JOBS))) {
            JobRecord job = Json.MAPPER.readValue(line, JobRecord.class);
            if (job.uid().equals(hang.job())) {
                job.ranks().forEach(r -> nodes.add(r.node()));
            }
        }
        StringBuilder gpus = new StringBuilder();
        for (long t = truth.startMs() + 500; t < truth.endMs(); t += 1_000) {
            for (String node : nodes) {
                boolean hung = t > hang.onsetMs();
                gpus.append(new String(Json.toBytes(new GpuSample(GpuSample.VERSION, node, 0, node + "-GPU-0", t,
                        1_000, 100.0, hung ? 0.0 : 4.0, hung ? 125.0 : 200.0, 1_980.0, 1)))).append('\n');
            }
        }
        Files.writeString(dir.resolve(ScenarioFiles.GPU_SAMPLES), gpus);

        ScenarioEvaluator evaluator = ScenarioEvaluator.of(StreamsReplay.config(null, Map.of(), Map.of()), 60_000,
                1);
        List<Alert> with = stalls(evaluator.replay(dir));
        List<Alert> without = stalls(evaluator.withoutGpuSamples().replay(dir));

        assertThat(with).singleElement().satisfies(a -> {
            assertThat(a.labels()).containsEntry("evidence", "gpus-waiting-in-collective");
            assertThat(a.detectedAt() - hang.onsetMs()).isBetween(0L, 5_000L);
        });
        assertThat(without).singleElement().satisfies(a -> assertThat(a.labels()).doesNotContainKey("evidence"));
        assertThat(with.get(0).detectedAt()).isLessThan(without.get(0).detectedAt());
    }

    private static List<Alert> stalls(List<Alert> alerts) {
        return alerts.stream().filter(a -> a.type().equals(Alert.STALLED_SYNC))
                .filter(a -> a.status().equals(Alert.FIRING)).toList();
    }
}
