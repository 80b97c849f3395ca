package io.rdmamon.clock;

import io.rdmamon.evaluate.ScenarioEvaluator;
import io.rdmamon.model.Alert;
import io.rdmamon.replay.StreamsReplay;
import io.rdmamon.scenario.ScenarioCatalog;
import io.rdmamon.scenario.ScenarioFiles;
import io.rdmamon.scenario.ScenarioRecorder;
import io.rdmamon.scenario.ScenarioRecorder.Recording;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 37: the labelled scenarios replayed (as {@code rdmamon evaluate} does) with one or two nodes' clocks off, both
 * ways, by 5 to 30 s, give the alerts of the same traffic with every clock right: no COLLECTOR_SILENT about the other
 * nodes, no STRAGGLER from the shift, and STALLED_SYNC at most 5 s later.
 */
class ClockSkewScenarioTest {
    @TempDir
    static Path root;
    /** The alerts of each folder: a scenario with every clock right, or a {@link Skew#folder()}. */
    private static final Map<String, List<Alert>> alerts = new ConcurrentHashMap<>();

    record Skew(String scenario, Map<String, Long> offsets) {
        String folder() {
            return scenario + offsets.entrySet().stream().sorted(Map.Entry.comparingByKey())
                    .map(e -> "_" + e.getKey() + (e.getValue() > 0 ? "+" : "") + e.getValue() / 1000 + "s")
                    .collect(Collectors.joining());
        }

        @Override
        public String toString() {
            return folder();
        }
    }

    static List<Skew> skews() {
        return List.of(
                new Skew("hang", Map.of("gpu-node-2", 30_000L)),
                new Skew("hang", Map.of("gpu-node-2", -30_000L)),
                new Skew("hang", Map.of("gpu-node-2", 5_000L)),
                new Skew("eval-phase", Map.of("gpu-node-2", -30_000L)),
                new Skew("straggler", Map.of("gpu-node-1", 8_000L, "gpu-node-4", -20_000L)),
                new Skew("concurrent-jobs", Map.of("gpu-node-2", -5_000L, "gpu-node-5", 30_000L)));
    }

    @BeforeAll
    static void replayWithAndWithoutSkew() throws Exception {
        ScenarioEvaluator evaluator = ScenarioEvaluator.of(StreamsReplay.config(null, Map.of(), Map.of()), 60_000, 1);
        Map<String, Recording> recordings = new HashMap<>();
        for (Skew skew : skews()) {
            Recording recording = recordings.computeIfAbsent(skew.scenario(),
                    name -> firstMinutes(ScenarioRecorder.record(ScenarioCatalog.get(name, 1)), MINUTES.get(name)));
            ScenarioFiles.write(shifted(recording, skew.offsets()), root.resolve(skew.folder()));
        }
        for (Map.Entry<String, Recording> e : recordings.entrySet()) {
            ScenarioFiles.write(e.getValue(), root.resolve(e.getKey()));
        }
        // two replays at a time, as rdmamon evaluate does by default: each has its own driver and state
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> replays = new ArrayList<>();
            for (String folder : Stream.concat(recordings.keySet().stream(), skews().stream().map(Skew::folder))
                    .toList()) {
                replays.add(pool.submit(() -> alerts.put(folder, evaluator.replay(root.resolve(folder)))));
            }
            for (Future<?> replay : replays) {
                replay.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * How much of each scenario is replayed, to keep the test lean: past its incidents' detection (seed 1: the hang
     * at 6:04, the straggler at 5:33, the concurrent jobs' stall at 6:05), or a minute into the evaluation phase (from
     * 5 min: a stall taken for it would fire within seconds).
     */
    private static final Map<String, Double> MINUTES = Map.of("hang", 6.5, "eval-phase", 6.0, "straggler", 6.5,
            "concurrent-jobs", 6.5);

    static Recording firstMinutes(Recording r, double minutes) {
        long end = r.truth().startMs() + (long) (minutes * 60_000);
        return new Recording(r.portSamples().stream().filter(s -> s.ts() < end).toList(),
                r.hostSamples().stream().filter(s -> s.ts() < end).toList(),
                r.jobs().stream().filter(j -> j.updatedAt() < end).toList(), r.truth());
    }

    /** The recording as collectors with those clock offsets would have sent it: same order, their own times. */
    static Recording shifted(Recording r, Map<String, Long> offsets) {
        return new Recording(
                r.portSamples().stream().map(s -> s.withTs(s.ts() + offsets.getOrDefault(s.node(), 0L))).toList(),
                r.hostSamples().stream().map(s -> s.withTs(s.ts() + offsets.getOrDefault(s.node(), 0L))).toList(),
                r.jobs(), r.truth());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("skews")
    void shouldRaiseTheAlertsOfTheSameTrafficWithEveryClockRight(Skew skew) {
        List<Alert> expected = alerts.get(skew.scenario());
        List<Alert> actual = alerts.get(skew.folder());

        assertThat(subjects(actual)).isEqualTo(subjects(expected));
        for (Alert stall : firing(expected, Alert.STALLED_SYNC)) {
            Alert same = firing(actual, Alert.STALLED_SYNC).stream()
                    .filter(a -> subject(a).equals(subject(stall))).findFirst().orElseThrow();
            assertThat(same.detectedAt()).as("STALLED_SYNC detected at")
                    .isBetween(stall.detectedAt() - 5_000, stall.detectedAt() + 5_000);
        }
    }

    /** What each firing alert is about: type and subject, without times. */
    private static Set<String> subjects(List<Alert> alerts) {
        return alerts.stream().filter(a -> a.status().equals(Alert.FIRING))
                .map(ClockSkewScenarioTest::subject).collect(Collectors.toCollection(TreeSet::new));
    }

    private static String subject(Alert a) {
        return a.type() + " " + a.job() + " " + a.node() + " " + a.device() + " " + a.port();
    }

    private static List<Alert> firing(List<Alert> alerts, String type) {
        return alerts.stream().filter(a -> a.status().equals(Alert.FIRING) && a.type().equals(type)).toList();
    }
}
