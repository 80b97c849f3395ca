package io.rdmamon.evaluate;

import io.rdmamon.model.Alert;
import io.rdmamon.replay.StreamsReplay;
import io.rdmamon.scenario.ScenarioCatalog;
import io.rdmamon.scenario.ScenarioFiles;
import io.rdmamon.scenario.ScenarioRecorder;
import io.rdmamon.streams.StreamsAppConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ACS scenarios ({@code rdmamon simulate acs-p16en}, {@code acs-gu8tf}) scored with default settings: a P16EN
 * job over sockets and a GU8TF job over RDMA, both hanging and then failed with their pods. Each hang is flagged,
 * and nothing else: no TCP_FALLBACK for the socket job, no COLLECTOR_SILENT for the pods that ended.
 */
class AcsScenariosTest {
    @TempDir
    Path root;

    @Test
    void shouldFlagTheHangOfEachAcsJobAndNothingElse() throws Exception {
        List<String> names = List.of("acs-p16en", "acs-gu8tf");
        for (String name : names) {
            ScenarioFiles.write(ScenarioRecorder.record(ScenarioCatalog.get(name, 1)), root.resolve(name));
        }
        StreamsAppConfig config = StreamsReplay.config(null, Map.of(), Map.of());

        EvaluationReport report = ScenarioEvaluator.of(config, 60_000, 2)
                .evaluate(ScenarioEvaluator.scenarioDirs(root));

        assertThat(report.scenarios()).extracting(ScenarioScore::scenario).containsExactlyInAnyOrderElementsOf(names);
        assertThat(report.scenarios()).allSatisfy(s -> {
            assertThat(s.misses()).as(s.scenario()).isEmpty();
            assertThat(s.falsePositives()).as(s.scenario()).isEmpty();
            assertThat(s.hits()).as(s.scenario()).singleElement()
                    .satisfies(h -> assertThat(h.incident().type()).isEqualTo(Alert.STALLED_SYNC));
        });
    }
}
