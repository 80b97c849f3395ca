package io.rdmamon.sim;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class TrainingTrafficModelTest {
    private static final long LINK = 25_000_000_000L;
    private static final TrafficProfile SUB_SECOND = TrafficProfile.of(800, 500, LINK, 0.6);

    @Test
    void shouldGiveEveryRankSimilarBytesWhenTrainingIsHealthy() {
        TrainingTrafficModel model = new TrainingTrafficModel(TrainingJobSpec.steady(4, 2, 0, SUB_SECOND), 1);
        long[] perRank = new long[4];
        for (long t = 0; t < 60_000; t += 1000) {
            for (int r = 0; r < 4; r++) {
                perRank[r] += model.port(r, 0, t, t + 1000).txBytes();
            }
        }
        double mean = SUB_SECOND.meanBytesPerSec() * 60;
        for (long bytes : perRank) {
            assertThat((double) bytes).isCloseTo(mean, within(mean * 0.02));
        }
    }

    @Test
    void shouldShowQuietSecondsWhenIterationGapsAreLongerThanASecond() {
        TrafficProfile longGaps = TrafficProfile.of(3000, 600, LINK, 0.5);
        TrainingTrafficModel slow = new TrainingTrafficModel(TrainingJobSpec.steady(2, 1, 0, longGaps), 1);
        TrainingTrafficModel fast = new TrainingTrafficModel(TrainingJobSpec.steady(2, 1, 0, SUB_SECOND), 1);
        assertThat(quietSeconds(slow, 0, 0, 60_000)).isBetween(20, 40);
        assertThat(quietSeconds(fast, 0, 0, 60_000)).isZero();
    }

    @Test
    void shouldSilenceEveryRankWhenTheJobHangs() {
        TrainingJobSpec spec = TrainingJobSpec.steady(4, 2, 0, SUB_SECOND).withFault(new Fault.Hang(30_000, null));
        TrainingTrafficModel model = new TrainingTrafficModel(spec, 1);
        for (int r = 0; r < 4; r++) {
            assertThat(quietSeconds(model, r, 0, 30_000)).isZero();
            assertThat(quietSeconds(model, r, 30_000, 60_000)).isEqualTo(30);
        }
    }

    @Test
    void shouldCountOneLinkDownPerFlapAndReportTheLinkDownWhileDown() {
        Fault flap = new Fault.LinkFlap(1, 0, 3_000, 7_000, 10_000, 40_000L);
        TrainingTrafficModel model = new TrainingTrafficModel(
                TrainingJobSpec.steady(2, 1, 0, SUB_SECOND).withFault(flap), 1);
        long downs = 0;
        List<Boolean> up = new ArrayList<>();
        for (long t = 0; t < 60_000; t += 1000) {
            PortTraffic p = model.port(1, 0, t, t + 1000);
            downs += p.errors().getOrDefault(ErrorKind.LINK_DOWNED, 0L);
            up.add(p.linkUp());
        }
        assertThat(downs).isEqualTo(3);
        assertThat(up.stream().filter(u -> !u).count()).isEqualTo(9);
        assertThat(model.port(0, 0, 10_000, 11_000).txBytes()).as("the peer blocks while the link is down").isZero();
    }

    @Test
    void shouldReportErrorsOnlyOnTheDegradedPort() {
        Fault degraded = new Fault.DegradedLink(1, 0, 0.6, 0.8, 400, 40, 0, null);
        TrainingTrafficModel model = new TrainingTrafficModel(
                TrainingJobSpec.steady(2, 2, 0, SUB_SECOND).withFault(degraded), 1);
        PortTraffic culprit = model.port(1, 0, 5_000, 6_000);
        PortTraffic rail = model.port(1, 1, 5_000, 6_000);
        assertThat(culprit.errors().get(ErrorKind.RETRANSMIT)).isBetween(300L, 500L);
        assertThat(culprit.errors().get(ErrorKind.DROP)).isBetween(25L, 55L);
        assertThat(rail.errors()).doesNotContainKeys(ErrorKind.RETRANSMIT, ErrorKind.DROP);
        assertThat((double) culprit.txBytes()).isLessThan(rail.txBytes() * 0.75);
    }

    @Test
    void shouldCapTheWholeRingAtTheDownshiftedRate() {
        long slow = 6_250_000_000L;
        TrainingTrafficModel model = new TrainingTrafficModel(TrainingJobSpec.steady(2, 1, 0, SUB_SECOND)
                .withFault(new Fault.SpeedDownshift(1, 0, slow, 0, null)), 1);
        assertThat(model.port(1, 0, 0, 1000).rateCapBytesPerSec()).isEqualTo(slow);
        assertThat(model.port(0, 0, 0, 1000).rateCapBytesPerSec()).isNull();
        assertThat(model.instantRate(0, 0, 700)).isEqualTo(slow);
    }

    @Test
    void shouldMoveTheMissingRanksTrafficToTheHostNetwork() {
        TrainingTrafficModel model = new TrainingTrafficModel(TrainingJobSpec.steady(4, 2, 0, SUB_SECOND)
                .withFault(new Fault.MissingRank(3, 0.2, 10_000, null)), 1);
        assertThat(model.port(3, 0, 20_000, 21_000).txBytes()).isZero();
        assertThat(model.port(2, 0, 20_000, 21_000).txBytes()).isPositive();
        assertThat(model.host(3, 20_000, 21_000).txBytes()).isGreaterThan(1_000_000_000L);
        assertThat(model.host(2, 20_000, 21_000).txBytes()).isZero();
    }

    @Test
    void shouldGiveTheSameTrafficForTheSameSeed() {
        TrainingJobSpec spec = TrainingJobSpec.steady(2, 1, 0, SUB_SECOND);
        assertThat(new TrainingTrafficModel(spec, 7).port(1, 0, 3_000, 4_000))
                .isEqualTo(new TrainingTrafficModel(spec, 7).port(1, 0, 3_000, 4_000))
                .isNotEqualTo(new TrainingTrafficModel(spec, 8).port(1, 0, 3_000, 4_000));
    }

    private static int quietSeconds(TrainingTrafficModel model, int rank, long from, long to) {
        int quiet = 0;
        for (long t = from; t < to; t += 1000) {
            if (model.port(rank, 0, t, t + 1000).txBytes() == 0) {
                quiet++;
            }
        }
        return quiet;
    }
}
