package io.rdmamon.collector.eadm;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.collector.EadmRate;
import io.rdmamon.collector.eadm.EadmCrossCheck.Mismatch;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class EadmCrossCheckTest {
    private static final double MIB = 1024 * 1024;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private EadmCrossCheck crossCheck(int window) {
        return new EadmCrossCheck(new EadmConfig(Map.of(EadmConfig.CROSSCHECK_WINDOW_CONFIG, window)), registry);
    }

    private static EadmRate eadm(double txMib, double rxMib) {
        return new EadmRate("erdma_0", rxMib * MIB, 1.0, txMib * MIB, 1.0, 0L);
    }

    private double mismatches(String direction) {
        Counter c = registry.find(EadmCrossCheck.MISMATCHES_METRIC).tags("device", "erdma_0", "direction", direction)
                .counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void shouldReportNothingWhenRatesAgreeWithinTolerance() {
        EadmCrossCheck check = crossCheck(1);

        // 8% and 0% apart
        assertThat(check.check("erdma_0", 1000 * MIB, 500 * MIB, eadm(920, 500))).isEmpty();
        assertThat(registry.find(EadmCrossCheck.MISMATCHES_METRIC).tags("device", "erdma_0", "direction", "tx")
                .counter()).as("the series exists at 0 from the first check").isNotNull();
        assertThat(mismatches("tx")).isZero();
    }

    @Test
    void shouldCountAndReturnBothFiguresWhenRatesDisagree() {
        EadmCrossCheck check = crossCheck(1);

        assertThat(check.check("erdma_0", 1000 * MIB, 500 * MIB, eadm(880, 500)))
                .as("one window apart is not yet a disagreement: it must outlast two windows").isEmpty();
        List<Mismatch> result = check.check("erdma_0", 1000 * MIB, 500 * MIB, eadm(880, 500));

        assertThat(result).singleElement().satisfies(m -> {
            assertThat(m.direction()).isEqualTo("tx");
            assertThat(m.sysfsBytesPerSec()).isEqualTo(1000 * MIB);
            assertThat(m.eadmBytesPerSec()).isEqualTo(880 * MIB);
            assertThat(m.relativeDifference()).isCloseTo(0.12, within(1e-9));
        });
        assertThat(mismatches("tx")).isEqualTo(1);
        assertThat(mismatches("rx")).isZero();
    }

    @Test
    void shouldFlagDeadEadmWhenSysfsShowsTrafficAndEadmShowsNone() {
        EadmCrossCheck check = crossCheck(1);

        check.check("erdma_0", 0.0, 900 * MIB, eadm(0, 0));
        assertThat(check.check("erdma_0", 0.0, 900 * MIB, eadm(0, 0)))
                .extracting(Mismatch::direction).containsExactly("rx");
    }

    @Test
    void shouldSkipComparisonWhenBothRatesAreTiny() {
        EadmCrossCheck check = crossCheck(1);

        // 100 KiB/s against 10 KiB/s: 90% apart, but below 1 MiB/s on both sides
        assertThat(check.check("erdma_0", 100 * 1024.0, 100 * 1024.0, eadm(10.0 / 1024, 10.0 / 1024))).isEmpty();
        assertThat(mismatches("tx")).isZero();
    }

    @Test
    void shouldAddNothingWhenEitherSideIsUnknown() {
        EadmCrossCheck check = crossCheck(2);

        check.check("erdma_0", 1000 * MIB, null, null);
        check.check("erdma_0", null, null, eadm(1, 1));
        assertThat(check.check("erdma_0", 1000 * MIB, 1000 * MIB, eadm(1, 1)))
                .as("only one valid pair so far: the window of 2 is not full").isEmpty();

        for (int i = 0; i < 3; i++) {
            assertThat(check.check("erdma_0", 1000 * MIB, 1000 * MIB, eadm(1, 1))).as("check " + i).isEmpty();
        }
        assertThat(check.check("erdma_0", 1000 * MIB, 1000 * MIB, eadm(1, 1)))
                .as("four full windows apart (two windows of 2)").hasSize(2);
    }

    @Test
    void shouldAverageOutMisalignedBurstsWhenWindowCoversThem() {
        // all-reduce bursts: the collector's pass sees a burst while eadm's window sees the gap, and the other way
        double[][] sysfsAndEadm = {{1000, 0}, {0, 1000}, {1000, 0}, {0, 1000}};
        EadmCrossCheck single = crossCheck(1);
        EadmCrossCheck smoothed = crossCheck(2);
        int singleMismatches = 0;
        int smoothedMismatches = 0;

        for (double[] pass : sysfsAndEadm) {
            double sysfs = pass[0] * MIB;
            singleMismatches += single.check("erdma_0", sysfs, sysfs, eadm(pass[1], pass[1])).size();
            smoothedMismatches += smoothed.check("erdma_1", sysfs, sysfs,
                    new EadmRate("erdma_1", pass[1] * MIB, null, pass[1] * MIB, null, 0L)).size();
        }

        // a window of 1 flags from the second pass on, both directions: 3 passes x 2
        assertThat(singleMismatches).isEqualTo(6);
        assertThat(smoothedMismatches).isZero();
    }

    @Test
    void shouldNotFlagTheLagOfEadmWhenTrafficStepsUp() {
        // job start or end of a checkpoint: traffic jumps from 0 to 900 MiB/s; eadm's line lags one pass
        EadmCrossCheck check = crossCheck(10);
        double previous = 0;
        int mismatches = 0;
        for (int pass = 0; pass < 40; pass++) {
            double now = pass < 10 ? 0 : 900;
            mismatches += check.check("erdma_0", now * MIB, now * MIB, eadm(previous, previous)).size();
            previous = now;
        }
        assertThat(mismatches).isZero();
    }

    @Test
    void shouldFlagAPersistentDisagreementAfterTwoWindows() {
        EadmCrossCheck check = crossCheck(10);
        int firstFlaggedAt = -1;
        for (int pass = 0; pass < 40 && firstFlaggedAt < 0; pass++) {
            if (!check.check("erdma_0", 1000 * MIB, 1000 * MIB, eadm(700, 700)).isEmpty()) {
                firstFlaggedAt = pass;
            }
        }
        // the window is full at pass 9; the means must stay apart for 20 full-window checks
        assertThat(firstFlaggedAt).isEqualTo(28);
    }
}
