package io.rdmamon.detect;

import io.rdmamon.jobs.Holder;
import io.rdmamon.jobs.JobEvent;
import io.rdmamon.jobs.JobSample;
import io.rdmamon.jobs.PortTraffic;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.Json;
import io.rdmamon.streams.StreamsAppConfig;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.assertj.core.data.Offset;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link StallDetector} learns does not depend on the order the samples arrive in: a generated job (1-4 nodes of
 * 1-2 ports, each node sampling once a second at a phase of its own with some jitter) trains, pauses several times
 * for random lengths (a 15 s evaluation among them) and may hang at the end; its samples are delivered in time order
 * and again each up to 1.5 s late (a seeded permutation within the lateness the app accepts). Both deliveries must
 * teach the same quiets and raise the same alerts: the same stalls from the same quiet start, naming the same
 * longest quiet and threshold, detected and resolved within the lateness of each other (alerts are judged on the
 * live edge, where the next second's samples may not all be in yet).
 *
 * <p>Quiets are kept clear of the threshold they meet (by more than sampling and lateness can move either), where
 * whether a quiet fires depends on the sample that ends it, in any order. The examples are the two cases first
 * reported from real traces, a DDP job's second 15 s evaluation and an FSDP job's hang after a 12 s stall, with their
 * samples up to 1.5 s late.
 */
class StallArrivalOrderPropertiesTest {
    static final long T0 = 1_700_000_000_000L;
    static final long MAX_LATE_MS = 1_500;
    static final long TRAINING_RATE = 10_000_000_000L;
    /** Quiet lengths closer than this to their threshold may or may not fire, whatever the order. */
    static final long BORDER_MS = 4_000;

    private final DetectorConfig cfg = new StreamsAppConfig(Map.of()).detectors();

    @Property(tries = 300)
    void theSameTrafficInAnyOrderWithinTheLatenessTeachesTheSameQuietsAndRaisesTheSameAlerts(
            @ForAll @IntRange(min = 1, max = 4) int nodes, @ForAll @IntRange(min = 1, max = 2) int devices,
            @ForAll @Size(min = 1, max = 5) List<@IntRange(min = 3_000, max = 40_000) Integer> pauses,
            @ForAll @IntRange(min = 0, max = 5) int evaluationAt, @ForAll boolean hangs, @ForAll long seed) {
        List<Long> lengths = new ArrayList<>(pauses.stream().map(Long::valueOf).toList());
        lengths.add(Math.min(evaluationAt, lengths.size()), 15_000L);
        Job job = Job.generate(nodes, devices, clearOfThresholds(lengths), hangs, seed);
        List<JobEvent> inOrder = job.samples(seed, 0);
        List<JobEvent> late = job.samples(seed, MAX_LATE_MS);

        Run expected = run(job, inOrder);
        Run actual = run(job, late);

        assertThat(actual.history).as("learned quiets").isEqualTo(expected.history);
        assertThat(actual.firing()).as("stalls").isEqualTo(expected.firing());
        assertThat(actual.observations).hasSameSizeAs(expected.observations);
        for (int i = 0; i < expected.observations.size(); i++) {
            assertThat(actual.observations.get(i).at()).as("when observation %d was made", i)
                    .isCloseTo(expected.observations.get(i).at(), Offset.offset(2_500L));
        }
        // the 15 s evaluation, measured between samples a second apart with up to 50 ms of jitter: at least 15 s less
        // one interval and the jitter (13,987 ms seen)
        assertThat(expected.longest).as("the job learns its pauses").isGreaterThanOrEqualTo(13_900L);
    }

    @Example
    void aDdpJobStaysSilentOnASecondEvaluationItResumedFromWhateverTheOrder() {
        // 2 ranks on 2 nodes, sampling 137 ms apart; 15 s evaluations on every rank at 150 s and 85 s after the
        // first ended, then a hang: the first evaluation fires (longer than any quiet before), the second does not,
        // and the hang is judged against the 15 s (before this rule, 2 of these 20 seeds fired on the second
        // evaluation, "not quiet for more than 2 s before", and 6 more judged the hang so)
        Job job = new Job(2, 1, List.of(new long[]{T0 + 150_000, T0 + 165_000}, new long[]{T0 + 250_000,
                T0 + 265_000}, new long[]{T0 + 400_000, Long.MAX_VALUE}), T0 + 460_000, new long[]{0, 137});
        for (long seed = 1; seed <= 20; seed++) {
            assertThat(stallsLate(job, seed)).as("seed %d", seed).hasSize(2).satisfiesExactly(
                    evaluation -> assertThat(evaluation.condition().since()).isBetween(T0 + 149_000, T0 + 151_000),
                    hang -> {
                        assertThat(hang.condition().since()).isBetween(T0 + 399_000, T0 + 401_000);
                        assertThat(Long.parseLong(hang.condition().labels().get("longestQuietMs")))
                                .isBetween(14_000L, 16_000L);
                    });
        }
    }

    @Example
    void anFsdpJobsHangNamesTheStallItResumedFromWhateverTheOrder() {
        // a 4.8 s data-loader stall, a 12 s one (it fires and resolves), then a hang: it names the 12 s quiet
        // (before this rule, the hang knew no quiet at 4 of these 20 seeds)
        Job job = new Job(2, 1, List.of(new long[]{T0 + 100_000, T0 + 104_800}, new long[]{T0 + 200_000,
                T0 + 212_000}, new long[]{T0 + 320_000, Long.MAX_VALUE}), T0 + 380_000, new long[]{0, 137});
        for (long seed = 1; seed <= 20; seed++) {
            // the 4.8 s stall ends about when it crosses the 5 s minimum: it may fire, in any order
            assertThat(stallsLate(job, seed)).as("seed %d", seed)
                    .filteredOn(o -> o.condition().since() > T0 + 150_000).hasSize(2).last().satisfies(hang -> {
                        assertThat(hang.condition().since()).isBetween(T0 + 319_000, T0 + 321_000);
                        assertThat(Long.parseLong(hang.condition().labels().get("longestQuietMs")))
                                .isBetween(11_000L, 13_000L);
                    });
        }
    }

    /**
     * Moves each pause clear of the threshold it meets (1.7 × the longest before, at least 5 s): one closer may fire
     * or not depending on where exactly the job's samples fall, in any order.
     */
    private List<Long> clearOfThresholds(List<Long> lengths) {
        List<Long> clear = new ArrayList<>();
        long longest = 0;
        for (long length : lengths) {
            long threshold = Math.max(cfg.stallMinQuietMs(), Math.round(cfg.stallPauseMultiplier() * longest));
            long cleared = Math.abs(length - threshold) < BORDER_MS ? threshold + BORDER_MS : length;
            clear.add(cleared);
            longest = Math.max(longest, cleared);
        }
        return clear;
    }

    /** The stalls raised on {@code job}'s samples, each delivered up to 1.5 s late (seeded). */
    private List<Observation> stallsLate(Job job, long seed) {
        return run(job, job.samples(seed, MAX_LATE_MS)).observations.stream().filter(o -> o.condition() != null)
                .toList();
    }

    private Run run(Job job, List<JobEvent> events) {
        StallDetector detector = new StallDetector(cfg);
        StallState state = detector.inspect(null, JobEvent.of(job.record()), T0).state();
        List<Observation> observations = new ArrayList<>();
        for (JobEvent e : events) {
            Result<StallState> r = detector.inspect(state, e, e.port().traffic().ts());
            state = r.state();
            observations.addAll(r.observations());
        }
        QuietHistory.Quiet longest = state.history.longest();
        return new Run(new String(Json.toBytes(state.history)), longest == null ? 0 : longest.length(), observations);
    }

    private record Run(String history, long longest, List<Observation> observations) {
        /** The stalls: when the quiet began, the longest quiet before it and the threshold it crossed. */
        List<String> firing() {
            return observations.stream().filter(o -> o.condition() != null).map(o -> o.condition().since() + " "
                    + o.condition().labels().get("longestQuietMs") + " "
                    + o.condition().labels().get("thresholdSeconds")).toList();
        }
    }

    /**
     * A job whose ranks train at a steady rate from 10 s, with pauses (each after 30-90 s of training, the first past
     * the warm-up), and after them either a hang (quiet until the end, well past its threshold) or training.
     */
    private record Job(int nodes, int devices, List<long[]> quiets, long end, long[] phases) {
        static Job generate(int nodes, int devices, List<Long> lengths, boolean hangs, long seed) {
            SplittableRandom random = new SplittableRandom(seed ^ 0x5DEECE66DL);
            List<long[]> quiets = new ArrayList<>();
            long t = T0 + 100_000;
            long longest = 0;
            for (long length : lengths) {
                quiets.add(new long[]{t, t + length});
                longest = Math.max(longest, length);
                t += length + 30_000 + random.nextLong(60_000);
            }
            long end = t;
            if (hangs) {
                long threshold = Math.max(5_000, Math.round(1.7 * longest));
                quiets.add(new long[]{t, Long.MAX_VALUE});
                end = t + threshold + 10_000;
            }
            long[] phases = new long[nodes];
            for (int n = 0; n < nodes; n++) {
                phases[n] = random.nextLong(1_000);
            }
            return new Job(nodes, devices, quiets, end, phases);
        }

        JobRecord record() {
            return new JobRecord(JobRecord.VERSION, "uid-p", "job-p", "team-a", JobRecord.RUNNING, T0, T0,
                    nodes * devices, List.of(), Map.of());
        }

        /**
         * Every port's samples (once a second at its node's phase, up to 50 ms late to read), in the order they
         * arrive: each {@code 0..maxLateMs} after its time.
         */
        List<JobEvent> samples(long seed, long maxLateMs) {
            SplittableRandom jitter = new SplittableRandom(seed);
            SplittableRandom delays = new SplittableRandom(seed + 1);
            record Arrival(long at, JobEvent event) {
            }
            Holder holder = new Holder("uid-p", "job-p", "team-a", List.of(), nodes * devices);
            List<Arrival> arrivals = new ArrayList<>();
            for (int n = 0; n < nodes; n++) {
                for (int d = 0; d < devices; d++) {
                    long previous = T0 + phases[n];
                    for (long nominal = previous + 1_000; nominal < end; nominal += 1_000) {
                        long ts = nominal + jitter.nextLong(50);
                        double rate = (double) TRAINING_RATE * trainingMs(previous, ts) / (ts - previous);
                        PortTraffic traffic = new PortTraffic("node-" + n, "mlx5_" + d, 1, ts, ts - previous,
                                200L * 125_000_000, rate, rate);
                        long late = maxLateMs == 0 ? 0 : delays.nextLong(maxLateMs + 1);
                        arrivals.add(new Arrival(ts + late, JobEvent.of(new JobSample(traffic, holder, 1))));
                        previous = ts;
                    }
                }
            }
            arrivals.sort(Comparator.comparingLong(Arrival::at)
                    .thenComparing(a -> a.event().port().traffic().key()));
            return arrivals.stream().map(Arrival::event).toList();
        }

        /** How much of (from, to] the job trained. */
        private long trainingMs(long from, long to) {
            long training = Math.max(0, to - Math.max(from, T0 + 10_000));
            for (long[] q : quiets) {
                training -= Math.max(0, Math.min(to, q[1]) - Math.max(from, q[0]));
            }
            return Math.max(0, training);
        }
    }
}
