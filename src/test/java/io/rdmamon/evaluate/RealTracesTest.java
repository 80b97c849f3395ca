package io.rdmamon.evaluate;

import io.rdmamon.model.Alert;
import io.rdmamon.replay.StreamsReplay;
import io.rdmamon.scenario.NcclTrace;
import io.rdmamon.scenario.ScenarioFiles;
import io.rdmamon.scenario.TraceImporter;
import io.rdmamon.streams.StreamsAppConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The quality bar on real traffic: every NCCL trace committed under {@code testbed/nccl/traces} (real PyTorch jobs,
 * DDP, FSDP, pipeline and tensor parallel, recorded on GPU machines, see testbed/nccl/README.md), imported as RDMA
 * traffic, as TCP fallback, as a fallback half way through (switch) and as a job meant to run over sockets whose eth0
 * carries 2-6 MB/s of other traffic besides (socket, ACS P16EN) at four phases (shifting the trace against the
 * detectors' windows and the collectors' sampling), replayed through the topology with default settings and scored:
 * no miss, no false alarm, no detection later than its incident allows (a hang within 8 s, or twice the longest
 * pause the job recovered from plus 3 s, on RDMA and on sockets alike; TCP fallback within 90 s of training or of the
 * switch).
 */
class RealTracesTest {
    static final Path TRACES = Path.of("testbed", "nccl", "traces");
    static final List<Long> PHASES = List.of(0L, 5_250L, 10_500L, 15_750L);
    static final List<TraceImporter.Form> FORMS = List.of(TraceImporter.Form.values());

    @TempDir
    static Path root;
    private static List<Path> traces;
    private static EvaluationReport report;

    @BeforeAll
    static void importAndEvaluateEveryTrace() throws IOException {
        try (Stream<Path> dirs = Files.list(TRACES)) {
            traces = dirs.filter(NcclTrace::isTrace).sorted().toList();
        }
        for (Path dir : traces) {
            NcclTrace trace = NcclTrace.read(dir);
            for (TraceImporter.Form form : FORMS) {
                for (long phase : PHASES) {
                    ScenarioFiles.write(TraceImporter.importTrace(trace, form, phase, 50, 1, false),
                            root.resolve(TraceImporter.scenarioName(trace, form, phase)));
                }
            }
        }
        StreamsAppConfig config = StreamsReplay.config(null, Map.of(), Map.of());
        report = ScenarioEvaluator.of(config, 60_000, 2).evaluate(ScenarioEvaluator.scenarioDirs(root));
    }

    @Test
    void shouldReplayEveryRealTraceInEveryFormAtEveryPhase() {
        assertThat(traces).hasSizeGreaterThanOrEqualTo(17);
        assertThat(report.scenarios()).hasSize(traces.size() * FORMS.size() * PHASES.size());
    }

    @Test
    void shouldReportEveryIncidentInTime() {
        assertThat(report.scenarios()).allSatisfy(s -> {
            assertThat(s.misses()).as(s.scenario()).isEmpty();
            assertThat(s.late()).as(s.scenario()).isEmpty();
        });
    }

    @Test
    void shouldRaiseNoFalseAlarm() {
        assertThat(report.scenarios()).allSatisfy(s -> assertThat(s.falsePositives()).as(s.scenario()).isEmpty());
    }

    @Test
    void shouldFlagEveryHangOnRdmaAndOnSocketsAndEveryJobOnTcp() {
        assertThat(hits("-rdma-", Alert.STALLED_SYNC)).as("hung jobs, 4 phases each")
                .isGreaterThanOrEqualTo(8L * PHASES.size());
        assertThat(hits("-tcp-", Alert.TCP_FALLBACK)).as("every job of every trace, 4 phases each")
                .isGreaterThanOrEqualTo(18L * PHASES.size());
        assertThat(hits("-socket-", Alert.STALLED_SYNC)).as("hung jobs over sockets beside other traffic")
                .isGreaterThanOrEqualTo(8L * PHASES.size());
        assertThat(hits("-switch-", Alert.TCP_FALLBACK)).as("jobs that trained on sockets for 90 s after the switch")
                .isGreaterThanOrEqualTo(10L * PHASES.size());
    }

    private static long hits(String form, String type) {
        return report.scenarios().stream().filter(s -> s.scenario().contains(form))
                .flatMap(s -> s.hits().stream()).filter(h -> h.incident().type().equals(type)).count();
    }
}
