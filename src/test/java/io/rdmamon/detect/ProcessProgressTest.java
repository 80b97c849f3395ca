package io.rdmamon.detect;

import io.rdmamon.model.GpuSample;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A GPU's processes at work or stuck, on the readings of one training process measured on an H200 through each phase
 * (its process tree's CPU, bytes through read/write system calls, states seen), with the default CPU floor.
 */
class ProcessProgressTest {
    private static final double FLOOR = DetectorConfig.DEFAULT_STALL_GPU_PROCESS_CPU;

    private static GpuSample sample(Double cpu, Double read, Double written, String states) {
        return new GpuSample(GpuSample.VERSION, "n1", 0, "GPU-a", 1_000, 1_000, 1.0, 0.0, 120.0, 1_980.0, 1)
                .withProcessActivity(cpu, read, written, states);
    }

    @Test
    void shouldSeeProgressInEveryPhaseOfARankAtWork() {
        assertThat(ProcessProgress.stuck(sample(1.6, 1e5, 1e5, "R"), FLOOR)).as("training").isNull();
        assertThat(ProcessProgress.stuck(sample(1.0, 0.0, 0.0, "R"), FLOOR)).as("evaluation").isNull();
        assertThat(ProcessProgress.stuck(sample(0.72, 0.0, 551e6, "RD"), FLOOR)).as("checkpoint").isNull();
        assertThat(ProcessProgress.stuck(sample(0.06, 12.7e6, 0.0, "S"), FLOOR)).as("slow loader").isNull();
    }

    @Test
    void shouldSayWhatAStuckRankShows() {
        assertThat(ProcessProgress.stuck(sample(0.01, 0.0, 0.0, "T"), FLOOR)).isEqualTo("stopped (state T)");
        assertThat(ProcessProgress.stuck(sample(0.02, 0.0, 0.0, "S"), FLOOR))
                .isEqualTo("sleeping without progress (state S, 0.02 cores, no bytes read or written)");
        assertThat(ProcessProgress.stuck(sample(0.0, 0.0, 0.0, "DS"), FLOOR))
                .isEqualTo("blocked in I/O (state D, 0.00 cores, no bytes read or written)");
        assertThat(ProcessProgress.stuck(sample(0.03, 0.0, 0.0, null), FLOOR))
                .isEqualTo("no progress (0.03 cores, no bytes read or written)");
    }

    @Test
    void shouldSayNothingWithoutTheByteCountersUnlessTheProcessIsStopped() {
        assertThat(ProcessProgress.stuck(sample(0.02, null, null, "S"), FLOOR)).isNull();
        assertThat(ProcessProgress.stuck(sample(null, null, null, null), FLOOR)).isNull();
        assertThat(ProcessProgress.stuck(sample(0.01, null, null, "T"), FLOOR)).isEqualTo("stopped (state T)");
        // stopped part of the interval only: it ran in the rest of it
        assertThat(ProcessProgress.stuck(sample(0.4, 0.0, 0.0, "RT"), FLOOR)).isNull();
    }

    @Test
    void shouldLeaveAGpuWithoutProcessToTheDeadRankRule() {
        GpuSample gone = new GpuSample(GpuSample.VERSION, "n1", 0, "GPU-a", 1_000, 1_000, 0.0, 0.0, 73.0, 345.0, 0)
                .withProcessActivity(0.0, 0.0, 0.0, "");
        assertThat(ProcessProgress.stuck(gone, FLOOR)).isNull();
    }
}
