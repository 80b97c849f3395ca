package io.rdmamon.evaluate;

import io.rdmamon.model.Alert;
import io.rdmamon.replay.StreamsReplay;
import io.rdmamon.scenario.GroundTruth;
import io.rdmamon.scenario.NcclTrace;
import io.rdmamon.scenario.ScenarioFiles;
import io.rdmamon.scenario.ScenarioRecorder;
import io.rdmamon.scenario.TraceImporter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real traces ({@link RealTracesTest}, {@link GpuTracesTest}) delivered in time order and again with every sample
 * up to 1.5 s late (a seeded permutation, two seeds), as from a busy broker: STALLED_SYNC must not depend on the order.
 * Each trace in the RDMA form and the socket form (ACS P16EN), the {@code gpu-*} traces also with their GPU samples,
 * at two sampling phases (0 and 10.5 s; {@link RealTracesTest} covers all four in the recorded order): the same stalls,
 * from the same quiet start, naming the same longest quiet and threshold, detected and resolved within the lateness
 * of each other; every delivery scored like the recorded one (no miss, no late detection, no false alarm). Where the
 * GPUs give no verdict, the learned rule's alerts are the same with GPU samples as without.
 *
 * <p>Alerts are judged on the live edge: a quiet that ends within the lateness of crossing its threshold may fire in
 * one order and not in another (the sample that crosses it or the one that ends it comes first). Only such a stall,
 * one that resolved within {@link #LIVE_EDGE_MS} of its detection in some delivery, may be missing from another; what
 * the job learned from it is compared all the same (the stalls after it name the same longest quiet).
 */
class LateSamplesTracesTest {
    static final long MAX_LATE_MS = 1_500;
    static final List<Long> SEEDS = List.of(1L, 2L);
    static final List<Long> PHASES = List.of(0L, 10_500L);
    /** Alerts are judged on the live edge: the samples that end or cross a quiet come up to this much later. */
    static final long LIVE_EDGE_MS = 2_500;

    @TempDir
    static Path root;
    private static ScenarioEvaluator evaluator;
    /** By variant (trace, form, phase, GPU samples or not): the alerts in time order, then late with each seed. */
    private static final Map<String, List<Replay>> variants = new LinkedHashMap<>();

    private record Replay(String scenario, GroundTruth truth, List<Alert> alerts) {
        List<Alert> stalls() {
            return alerts.stream().filter(a -> a.type().equals(Alert.STALLED_SYNC)).toList();
        }
    }

    @BeforeAll
    static void replayEveryTraceInTimeOrderAndLate() throws IOException {
        evaluator = ScenarioEvaluator.of(StreamsReplay.config(null, Map.of(), Map.of()), 60_000, 2);
        List<Path> traces;
        try (Stream<Path> dirs = Files.list(RealTracesTest.TRACES)) {
            traces = dirs.filter(NcclTrace::isTrace).sorted().toList();
        }
        for (Path dir : traces) {
            NcclTrace trace = NcclTrace.read(dir);
            for (long phase : PHASES) {
                replay(trace, TraceImporter.Form.RDMA, phase, false);
                replay(trace, TraceImporter.Form.SOCKET, phase, false);
                if (trace.hasGpus()) {
                    replay(trace, TraceImporter.Form.RDMA, phase, true);
                }
            }
        }
    }

    private static void replay(NcclTrace trace, TraceImporter.Form form, long phase, boolean gpus) throws IOException {
        String variant = TraceImporter.scenarioName(trace, form, phase) + (gpus ? "-gpus" : "");
        ScenarioRecorder.Recording recorded = TraceImporter.importTrace(trace, form, phase, 50, 1, gpus);
        List<Replay> replays = new ArrayList<>();
        replays.add(replay(variant + "-in-order", recorded.lateUpTo(0, 0)));
        for (long seed : SEEDS) {
            replays.add(replay(variant + "-late-" + seed, recorded.lateUpTo(MAX_LATE_MS, seed)));
        }
        variants.put(variant, replays);
    }

    private static Replay replay(String scenario, ScenarioRecorder.Recording recording) throws IOException {
        Path dir = root.resolve(scenario);
        ScenarioFiles.write(recording, dir);
        return new Replay(scenario, recording.truth(), evaluator.replay(dir));
    }

    @Test
    void shouldRaiseTheSameStallsWhateverTheOrderTheSamplesArriveIn() {
        assertThat(variants).hasSizeGreaterThanOrEqualTo(2 * 17 * PHASES.size());
        variants.forEach((variant, replays) -> {
            // a quiet that ended within the lateness of crossing its threshold fires or not depending on which
            // sample comes first, the one that crosses it or the one that ends it: in any order, in time order too
            Set<String> borderline = replays.stream().flatMap(r -> r.stalls().stream())
                    .filter(a -> a.endsAt() != null && a.endsAt() - a.detectedAt() <= LIVE_EDGE_MS)
                    .map(LateSamplesTracesTest::quiet).collect(Collectors.toSet());
            Set<String> inOrderQuiets = quiets(replays.get(0).stalls());
            for (Replay late : replays.subList(1, replays.size())) {
                Set<String> lateQuiets = quiets(late.stalls());
                Set<String> onlyInOne = new TreeSet<>(inOrderQuiets);
                onlyInOne.addAll(lateQuiets);
                onlyInOne.removeIf(q -> inOrderQuiets.contains(q) && lateQuiets.contains(q));
                assertThat(borderline).as("%s: stalls in one order only", late.scenario()).containsAll(onlyInOne);
                List<Alert> inOrder = replays.get(0).stalls().stream().filter(a -> lateQuiets.contains(quiet(a)))
                        .toList();
                List<Alert> stalls = late.stalls().stream().filter(a -> inOrderQuiets.contains(quiet(a))).toList();
                assertThat(stalls).as(late.scenario()).extracting(LateSamplesTracesTest::stall)
                        .containsExactlyElementsOf(inOrder.stream().map(LateSamplesTracesTest::stall).toList());
                for (int i = 0; i < inOrder.size(); i++) {
                    assertThat(Math.abs(stalls.get(i).detectedAt() - inOrder.get(i).detectedAt()))
                            .as("%s: detectedAt of %s", late.scenario(), stall(inOrder.get(i)))
                            .isLessThanOrEqualTo(LIVE_EDGE_MS);
                    if (inOrder.get(i).endsAt() != null) {
                        assertThat(Math.abs(stalls.get(i).endsAt() - inOrder.get(i).endsAt()))
                                .as("%s: endsAt of %s", late.scenario(), stall(inOrder.get(i)))
                                .isLessThanOrEqualTo(LIVE_EDGE_MS);
                    }
                }
            }
        });
    }

    private static Set<String> quiets(List<Alert> stalls) {
        return stalls.stream().map(LateSamplesTracesTest::quiet).collect(Collectors.toSet());
    }

    @Test
    void shouldReportEveryIncidentInTimeWithNoFalseAlarmInEveryOrder() {
        IncidentMatcher matcher = new IncidentMatcher(60_000);
        variants.values().stream().flatMap(List::stream).forEach(r -> {
            ScenarioScore s = Scoring.score(r.truth(), r.alerts(), matcher).named(r.scenario());
            assertThat(s.misses()).as(s.scenario()).isEmpty();
            // a verdict comes when its evidence arrives: a delivery late by up to MAX_LATE_MS may take that much
            // longer than the deadline (in time order the deadlines hold as they are: GpuTracesTest, RealTracesTest)
            long allowance = r.scenario().endsWith("-in-order") ? 0 : MAX_LATE_MS;
            assertThat(s.late().stream().filter(h -> h.latencyMs() > h.incident().maxLatencyMs() + allowance)
                    .toList()).as(s.scenario()).isEmpty();
            assertThat(s.falsePositives()).as(s.scenario()).isEmpty();
        });
    }

    @Test
    void shouldRaiseTheSameLearnedRuleStallsWithGpuSamplesWhereTheGpusGiveNoVerdict() {
        long compared = 0;
        for (Map.Entry<String, List<Replay>> withGpus : variants.entrySet()) {
            if (!withGpus.getKey().endsWith("-gpus")) {
                continue;
            }
            List<Replay> without = variants.get(withGpus.getKey().substring(0, withGpus.getKey().length() - 5));
            for (int i = 0; i < without.size(); i++) {
                List<Alert> gpuVerdicts = withGpus.getValue().get(i).stalls().stream()
                        .filter(a -> a.labels().containsKey("evidence")).toList();
                // a quiet the GPUs judged is not one the learned rule judges with them
                List<String> expected = without.get(i).stalls().stream()
                        .filter(a -> gpuVerdicts.stream().noneMatch(g -> g.startsAt() == a.startsAt()))
                        .map(LateSamplesTracesTest::stall).toList();
                List<String> learned = withGpus.getValue().get(i).stalls().stream()
                        .filter(a -> !a.labels().containsKey("evidence")).map(LateSamplesTracesTest::stall).toList();
                assertThat(learned).as(withGpus.getValue().get(i).scenario()).isEqualTo(expected);
                compared += expected.size();
            }
        }
        assertThat(compared).as("learned-rule stalls compared").isPositive();
    }

    private static String quiet(Alert a) {
        return a.job() + " from " + a.startsAt();
    }

    /** What must not depend on the order: a stall's state, job, quiet start, and what it was judged against. */
    private static String stall(Alert a) {
        return a.status() + " " + a.job() + " from " + a.startsAt() + " longest " + a.labels().get("longestQuietMs")
                + " threshold " + a.labels().get("thresholdSeconds") + " evidence " + a.labels().get("evidence");
    }
}
