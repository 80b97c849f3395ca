package io.rdmamon.clock;

import io.rdmamon.clock.ClockOffsets.State;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Each node's clock offset against the others': four nodes sampling once a second at their own phase, each sample
 * arriving 200 ms after the true time, one or two of them with a clock off.
 */
class ClockOffsetsTest {
    private static final long START = 1_767_225_600_000L;
    private static final long BOUND = 2_000;
    private static final long LIMIT = 300_000;

    private final List<String> changes = new ArrayList<>();
    private final ClockOffsets clocks = new ClockOffsets(BOUND, LIMIT,
            (node, before, after, offset, peers) -> changes.add(node + " " + after));
    /** What each node's samples lost in the last round. */
    private final Map<String, Long> corrections = new LinkedHashMap<>();

    /** {@code seconds} rounds from {@code from} s, each node's samples at its clock {@code offsets}. */
    private void run(int from, int seconds, Map<String, Long> offsets) {
        for (int s = from; s < from + seconds; s++) {
            int phase = 0;
            for (Map.Entry<String, Long> node : offsets.entrySet()) {
                long trueTime = START + s * 1_000L + phase;
                corrections.put(node.getKey(), clocks.observe(node.getKey(), trueTime + node.getValue(),
                        trueTime + 200));
                phase = (phase + 137) % 1_000;
            }
        }
    }

    private static Map<String, Long> clocks(long n1, long n2, long n3, long n4) {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("n1", n1);
        m.put("n2", n2);
        m.put("n3", n3);
        m.put("n4", n4);
        return m;
    }

    @Test
    void shouldCorrectANodeAheadOrBehindByItsOffsetAndNoOtherNode() {
        for (long offset : new long[] {30_000, -30_000, 5_000, -5_000}) {
            ClockOffsets fresh = new ClockOffsets(BOUND, LIMIT, (node, before, after, o, peers) -> { });
            long last = 0;
            for (int s = 0; s < 20; s++) {
                int phase = 0;
                for (String node : List.of("n1", "n2", "n3", "n4")) {
                    long trueTime = START + s * 1_000L + phase;
                    long c = fresh.observe(node, trueTime + (node.equals("n3") ? offset : 0), trueTime + 200);
                    if (node.equals("n3")) {
                        last = c;
                    } else {
                        assertThat(c).as(node + " with n3 off by " + offset).isZero();
                    }
                    phase += 137;
                }
            }
            assertThat(last).as("n3's correction").isCloseTo(offset, within(1_000L));
            assertThat(fresh.state("n3")).isEqualTo(State.CORRECTED);
            assertThat(fresh.offsetMs("n3")).isCloseTo(offset, within(1_000L));
        }
    }

    @Test
    void shouldLeaveAClockWithinTheBoundAlone() {
        run(0, 30, clocks(0, 800, -800, 0));
        assertThat(corrections).containsValues(0L, 0L, 0L, 0L);
        assertThat(changes).isEmpty();
    }

    @Test
    void shouldLeaveAClockBeyondTheContractsLimitAsItIs() {
        run(0, 10, clocks(0, 0, 360_000, 0));
        assertThat(corrections.get("n3")).isZero();
        assertThat(clocks.state("n3")).isEqualTo(State.BEYOND_LIMIT);
        assertThat(changes).containsExactly("n3 BEYOND_LIMIT");
    }

    @Test
    void shouldTakeTheMajoritysTimeWhenTheFirstNodeHeardFromIsTheOneOff() {
        run(0, 10, clocks(30_000, 0, 0, 0));
        assertThat(corrections.get("n1")).isCloseTo(30_000L, within(1_000L));
        assertThat(corrections).containsEntry("n2", 0L).containsEntry("n3", 0L).containsEntry("n4", 0L);
        assertThat(clocks.state("n1")).isEqualTo(State.CORRECTED);
    }

    @Test
    void shouldCorrectTwoNodesOffInDifferentWays() {
        run(0, 20, clocks(0, 8_000, 0, -20_000));
        assertThat(corrections.get("n2")).isCloseTo(8_000L, within(1_000L));
        assertThat(corrections.get("n4")).isCloseTo(-20_000L, within(1_000L));
        assertThat(corrections).containsEntry("n1", 0L).containsEntry("n3", 0L);
    }

    @Test
    void shouldFindTheNodeOffAmongManyWhoseReferenceIsCached() {
        Map<String, Long> many = new LinkedHashMap<>();
        for (int i = 1; i <= 40; i++) {
            many.put("n" + i, i == 17 ? -30_000L : 0L);
        }
        run(0, 20, many);
        assertThat(corrections.get("n17")).isCloseTo(-30_000L, within(1_000L));
        assertThat(corrections.entrySet()).filteredOn(e -> !e.getKey().equals("n17"))
                .allSatisfy(e -> assertThat(e.getValue()).as(e.getKey()).isZero());
        assertThat(changes).containsExactly("n17 CORRECTED");
    }

    @Test
    void shouldNotTakeABacklogFlushedAtOnceForAClockBehind() {
        run(0, 60, clocks(0, 0, 0, 0));
        // n4's collector could not publish for two minutes, then sends what it buffered at once, oldest first
        for (int s = 60; s < 180; s++) {
            int phase = 0;
            for (String node : List.of("n1", "n2", "n3")) {
                long trueTime = START + s * 1_000L + phase;
                clocks.observe(node, trueTime, trueTime + 200);
                phase += 137;
            }
        }
        long flushAt = START + 180_000;
        for (int s = 60; s < 180; s++) {
            for (int port = 0; port < 3; port++) {
                assertThat(clocks.observe("n4", START + s * 1_000L + 411, flushAt)).as("n4 at %d s", s).isZero();
            }
        }
        assertThat(changes).isEmpty();
    }

    /**
     * A partition's backlog read after a restart, faster than time passes: 40 nodes, each node's four minutes one after
     * another (a relay flushing node by node), then all of them again pass by pass. Each node looks minutes behind the
     * peers read before it and behind the wall clock, and none of that is a clock.
     */
    @Test
    void shouldNotTakeABacklogReadFasterThanTimeForClocksBehind() {
        WallClockReference wall = new WallClockReference(BOUND);
        ClockOffsets partition = new ClockOffsets(BOUND, LIMIT, wall,
                (node, before, after, offset, peers) -> changes.add(node + " " + after));
        ClockOffsets withoutWall = new ClockOffsets(BOUND, LIMIT,
                (node, before, after, offset, peers) -> changes.add("replay " + node + " " + after));
        long readAt = START + 600_000;
        for (int n = 0; n < 40; n++) {
            for (int s = 0; s < 240; s++) {
                for (int port = 0; port < 9; port++) {
                    readAt += 1; // 9,000 samples a second
                    long ts = START + s * 1_000L;
                    assertThat(partition.observe("n" + n, ts, readAt)).as("n%d at %d s", n, s).isZero();
                    assertThat(withoutWall.observe("n" + n, ts, readAt)).as("n%d at %d s", n, s).isZero();
                }
            }
        }
        for (int s = 240; s < 480; s++) {
            for (int n = 0; n < 40; n++) {
                for (int port = 0; port < 9; port++) {
                    readAt += 1;
                    assertThat(partition.observe("n" + n, START + s * 1_000L, readAt)).isZero();
                }
            }
        }
        assertThat(changes).isEmpty();
    }

    @Test
    void shouldGoBackInStepWhenTheClockIsSetRight() {
        run(0, 20, clocks(0, 0, -30_000, 0));
        assertThat(corrections.get("n3")).isCloseTo(-30_000L, within(1_000L));
        run(20, 40, clocks(0, 0, 0, 0));
        assertThat(corrections.get("n3")).isZero();
        assertThat(changes).containsExactly("n3 CORRECTED", "n3 IN_STEP");
    }

    /**
     * A cluster whose nodes sit in partitions of one or two (tasks of one instance, sharing the app's wall clock):
     * each node samples once a second at its own phase, each sample arriving 200 ms (plus its partition's lag) after
     * the true time.
     */
    private static final class Instance {
        final WallClockReference wall = new WallClockReference(BOUND);
        final Map<String, ClockOffsets> taskOf = new LinkedHashMap<>();
        final Map<String, Long> offsets = new LinkedHashMap<>();
        final Map<String, Long> lagOf = new LinkedHashMap<>();
        final List<String> changes = new ArrayList<>();
        final Map<String, Long> corrections = new LinkedHashMap<>();

        /** One partition (task) holding {@code nodes}, each with its clock offset. */
        Instance partition(long lagMs, Object... nodesAndOffsets) {
            ClockOffsets task = new ClockOffsets(BOUND, LIMIT, wall,
                    (node, before, after, offset, peers) -> changes.add(node + " " + after));
            for (int i = 0; i < nodesAndOffsets.length; i += 2) {
                String node = (String) nodesAndOffsets[i];
                taskOf.put(node, task);
                offsets.put(node, ((Number) nodesAndOffsets[i + 1]).longValue());
                lagOf.put(node, lagMs);
            }
            return this;
        }

        void run(int from, int seconds) {
            for (int s = from; s < from + seconds; s++) {
                int phase = 0;
                for (String node : taskOf.keySet()) {
                    long trueTime = START + s * 1_000L + phase;
                    corrections.put(node, taskOf.get(node).observe(node, trueTime + offsets.get(node),
                            trueTime + 200 + lagOf.get(node)));
                    phase = (phase + 137) % 1_000;
                }
            }
        }

        ClockOffsets.State state(String node) {
            return taskOf.get(node).state(node);
        }
    }

    @Test
    void shouldCorrectOnlyTheNodeOffInAPartitionOfTwoWhicheverIsHeardFirst() {
        for (long offset : new long[] {30_000, -30_000, 5_000, -5_000}) {
            for (boolean skewedFirst : new boolean[] {true, false}) {
                Instance instance = skewedFirst ? new Instance().partition(0, "bad", offset, "good", 0)
                        : new Instance().partition(0, "good", 0, "bad", offset);
                String what = "bad off by " + offset + (skewedFirst ? ", heard first" : "");
                for (int s = 0; s < 40; s += 5) {
                    instance.run(s, 5);
                    assertThat(instance.corrections.get("good")).as(what + ", good at %d s", s).isZero();
                }
                assertThat(instance.corrections.get("bad")).as(what).isCloseTo(offset, within(1_000L));
                assertThat(instance.changes).as(what).containsExactly("bad CORRECTED");
            }
        }
    }

    @Test
    void shouldCorrectANodeAloneInItsPartitionAgainstTheAppsClock() {
        for (long offset : new long[] {30_000, -30_000, 5_000, -5_000}) {
            Instance instance = new Instance().partition(0, "bad", offset).partition(0, "n2", 0)
                    .partition(0, "n3", 0, "n4", 0);
            instance.run(0, 60);
            assertThat(instance.corrections.get("bad")).as("off by " + offset).isCloseTo(offset, within(1_000L));
            assertThat(instance.changes).as("off by " + offset).containsExactly("bad CORRECTED");
        }
    }

    @Test
    void shouldNotTakeAPartitionReadLateForClocksBehind() {
        // after a restart, two partitions are read 60 s late and catch up at 1.1 times the pace of time (slow enough
        // that a node's last ages agree): their ages fall from 60 s to none, and never hold
        Instance instance = new Instance().partition(0, "n1", 0).partition(0, "n2", 0, "n3", 0)
                .partition(60_000, "a", 0, "b", 0).partition(60_000, "c", 0);
        for (int s = 0; s < 660; s++) {
            long lag = Math.max(0, 60_000 - s * 100L);
            instance.lagOf.put("a", lag);
            instance.lagOf.put("b", lag);
            instance.lagOf.put("c", lag);
            instance.run(s, 1);
        }
        assertThat(instance.changes).isEmpty();
        assertThat(instance.corrections).allSatisfy((node, c) -> assertThat(c).as(node).isZero());
    }

    @Test
    void shouldNotNameEveryNodeWhenTheAppsOwnClockIsBehind() {
        // every node's samples come from the app's future: the app's clock is the one off
        Instance instance = new Instance().partition(0, "n1", 30_000, "n2", 30_000).partition(0, "n3", 30_000);
        instance.run(0, 40);
        assertThat(instance.changes).isEmpty();
    }
}
