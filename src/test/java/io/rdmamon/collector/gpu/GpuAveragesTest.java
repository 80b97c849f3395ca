package io.rdmamon.collector.gpu;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class GpuAveragesTest {
    @Test
    void shouldAverageEachValueOverTheReadingsThatHadOneAndForgetThemOnceTaken() {
        GpuAverages averages = new GpuAverages();
        averages.add(new GpuReading(1, "GPU-b", 100.0, 0.0, 120.0, 1980.0));
        averages.add(new GpuReading(0, "GPU-a", 0.0, 10.0, 70.0, 345.0));
        averages.add(new GpuReading(1, "GPU-b", 50.0, null, 130.0, 1980.0));
        averages.add(new GpuReading(1, "GPU-b", 0.0, 3.0, null, 1410.0));

        assertThat(averages.take()).containsExactly(
                new GpuReading(0, "GPU-a", 0.0, 10.0, 70.0, 345.0),
                new GpuReading(1, "GPU-b", 50.0, 1.5, 125.0, 1790.0));
        assertThat(averages.take()).isEmpty();

        averages.add(new GpuReading(0, "GPU-a", null, null, null, null));
        assertThat(averages.take()).containsExactly(new GpuReading(0, "GPU-a", null, null, null, null));
    }

    @Test
    void shouldRoundMeansToTwoDecimalsAsNvidiaSmiPrintsThem() {
        GpuAverages averages = new GpuAverages();
        averages.add(new GpuReading(0, "GPU-a", 100.0, 0.0, 76.61, 345.0));
        averages.add(new GpuReading(0, "GPU-a", 0.0, 0.0, 76.59, 345.0));
        averages.add(new GpuReading(0, "GPU-a", 0.0, 0.0, 76.60, 345.0));

        GpuReading mean = averages.take().get(0);
        assertThat(mean.utilizationPercent()).isEqualTo(33.33);
        assertThat(mean.powerWatts()).isEqualTo(76.6);
    }
}
