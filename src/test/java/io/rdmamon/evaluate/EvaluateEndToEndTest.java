package io.rdmamon.evaluate;

import com.fasterxml.jackson.databind.JsonNode;
import io.rdmamon.cli.Main;
import io.rdmamon.model.Alert;
import io.rdmamon.model.Json;
import io.rdmamon.replay.StreamsReplay;
import io.rdmamon.scenario.ScenarioCatalog;
import io.rdmamon.scenario.ScenarioFiles;
import io.rdmamon.scenario.ScenarioRecorder;
import io.rdmamon.streams.StreamsAppConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The quality bar, end to end: every labelled scenario, generated, replayed through the real topology with default
 * settings and scored. Every incident that must be alerted is, nothing else is (checkpoint, evaluation phase, job
 * start and end, collector outage, shared NIC stay quiet), and a stall of a job with sub-second gaps is flagged
 * within 15 s (issue 3).
 */
class EvaluateEndToEndTest {
    @TempDir
    static Path root;
    private static EvaluationReport report;

    @BeforeAll
    static void evaluateAllScenarios() throws IOException {
        for (String name : ScenarioCatalog.names()) {
            ScenarioFiles.write(ScenarioRecorder.record(ScenarioCatalog.get(name, 1)), root.resolve(name));
        }
        StreamsAppConfig config = StreamsReplay.config(null, Map.of(), Map.of());
        report = ScenarioEvaluator.of(config, 60_000, 2).evaluate(ScenarioEvaluator.scenarioDirs(root));
    }

    @Test
    void shouldScoreEveryScenario() {
        assertThat(report.scenarios()).extracting(ScenarioScore::scenario)
                .containsExactlyInAnyOrderElementsOf(ScenarioCatalog.names());
    }

    @Test
    void shouldReportEveryIncidentThatMustBeAlerted() {
        assertThat(report.scenarios()).flatExtracting(ScenarioScore::misses).isEmpty();
        assertThat(report.types()).allMatch(t -> t.misses() == 0);
    }

    @Test
    void shouldRaiseNoFalseAlarmInAnyScenario() {
        assertThat(report.scenarios()).allSatisfy(s -> assertThat(s.falsePositives()).as(s.scenario()).isEmpty());
    }

    @Test
    void shouldFlagAStallOfASubSecondJobWithinFifteenSeconds() {
        List<ScenarioScore.Hit> stalls = report.scenarios().stream()
                .filter(s -> s.scenario().equals("hang") || s.scenario().equals("link-down"))
                .flatMap(s -> s.hits().stream()).filter(h -> h.incident().type().equals(Alert.STALLED_SYNC))
                .toList();
        assertThat(stalls).hasSize(2).allSatisfy(h -> assertThat(h.latencyMs()).isBetween(0L, 15_000L));
    }

    @Test
    void shouldPrintTheReportAsJsonAndPassStrictModeOnOneScenario() throws IOException {
        StringWriter out = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        int code = cli.execute("evaluate", "--scenarios", root.resolve("hang").toString(), "--json", "--strict");
        assertThat(code).isZero();
        JsonNode json = Json.MAPPER.readTree(out.toString());
        assertThat(json.get("scenarios")).hasSize(1);
        assertThat(json.get("scenarios").get(0).get("hits").get(0).get("latencyMs").asLong()).isPositive();
        assertThat(json.get("types").get(0).get("type").asText()).isEqualTo(Alert.STALLED_SYNC);
    }
}
