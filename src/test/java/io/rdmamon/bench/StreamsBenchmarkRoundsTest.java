package io.rdmamon.bench;

import io.rdmamon.bench.StreamsBenchmark.Reading;
import io.rdmamon.bench.StreamsBenchmark.Run;
import io.rdmamon.bench.StreamsBenchmark.SideBySide;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code bench streams --rounds}: the order of the runs and the medians it prints. */
class StreamsBenchmarkRoundsTest {

    @Test
    void shouldRotateTheOrderEachRoundAndGiveEveryRunItsOwnApplication() {
        List<Run> runs = Run.rotated(3, 3, "x");

        assertThat(runs).extracting(Run::variant).containsExactly(0, 1, 2, 1, 2, 0, 2, 0, 1);
        assertThat(runs).extracting(Run::appId).doesNotHaveDuplicates().allMatch(id -> id.startsWith("bench-x-"));
        // one round: the ids the single run always had
        assertThat(Run.rotated(2, 1, "x")).extracting(Run::appId).containsExactly("bench-x-0", "bench-x-1");
    }

    @Test
    void shouldPrintMediansAndRangesOverTheRounds() {
        long samples = 1000;
        List<SideBySide> pairs = List.of(
                pair(2.0, 10.0, 0.030, 40.0),  // 20 % of the raw rate, 0.040 ms per sample from start
                pair(2.0, 5.0, 0.010, 20.0),   // 40 %, 0.020 ms
                pair(2.0, 4.0, 0.020, 30.0));  // 50 %, 0.030 ms

        assertThat(Reading.summary(pairs, samples)).isEqualTo("40 [20-50] % of the raw consumer's rate from JVM "
                + "start; 0.0300 [0.0200-0.0400] CPU ms per sample from JVM start; 0.0200 [0.0100-0.0300] over the "
                + "second half");
        assertThat(Reading.summary(pairs.subList(0, 2), samples)).startsWith("30 [20-40] %");
    }

    /** A raw reading of {@code rawSeconds} and the app's, whose second half of 500 samples took {@code warmMs}. */
    private static SideBySide pair(double rawSeconds, double appSeconds, double warmMs, double appCpuSeconds) {
        Reading raw = new Reading(rawSeconds, 1, 1, 1, 500, Map.of(), Map.of(), null, 0);
        Reading app = new Reading(appSeconds, appCpuSeconds / 1000, 1, warmMs * 500 / 1000, 500, Map.of(), Map.of(),
                null, 0);
        return new SideBySide(raw, app);
    }
}
