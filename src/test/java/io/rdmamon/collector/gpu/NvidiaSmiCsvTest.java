package io.rdmamon.collector.gpu;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class NvidiaSmiCsvTest {
    @Test
    void shouldReadEveryLineOfARecordedH200Stream() throws IOException {
        List<String> lines = Files.readAllLines(FakeNvidiaSmi.recorded("nvidia-smi-h200-idle.csv"));

        List<GpuReading> readings = lines.stream().map(NvidiaSmiCsv::reading).map(r -> r.orElseThrow()).toList();

        assertThat(readings).hasSize(20);
        assertThat(readings.get(0)).isEqualTo(new GpuReading(0, "GPU-fa2badef-49a9-1483-88ed-34afc018aeb1", 0.0, 0.0,
                76.61, 345.0));
        assertThat(readings.get(1).index()).isEqualTo(1);
        assertThat(readings.get(1).uuid()).isEqualTo("GPU-74f94dfb-ad46-d469-fbb0-c0b2e470c1d7");
        assertThat(readings.get(1).powerWatts()).isEqualTo(78.50);
    }

    @Test
    void shouldGiveNullNeverZeroWhereTheDriverHasNoValue() {
        GpuReading r = NvidiaSmiCsv.reading("3, GPU-0b0b0b, [N/A], [Not Supported], [Unknown Error], [GPU is lost]")
                .orElseThrow();

        assertThat(r).isEqualTo(new GpuReading(3, "GPU-0b0b0b", null, null, null, null, List.of(), "Unknown Error"));
        assertThat(NvidiaSmiCsv.reading("3, GPU-0b0b0b, [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost]")
                .orElseThrow().error()).isEqualTo("GPU is lost");
        assertThat(NvidiaSmiCsv.reading("3, GPU-0b0b0b, [N/A], [N/A], [Not Supported], 1410").orElseThrow().error())
                .isNull();
        assertThat(NvidiaSmiCsv.reading("0, GPU-0b0b0b, 100, N/A, 120.5, 1980").orElseThrow()
                .memoryUtilizationPercent()).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {FakeNvidiaSmi.NO_DRIVER, "No devices were found", "", "0, GPU-a, 100, 0, 120",
            "0, GPU-a, 100, 0, 120, 1980, 7", "x, GPU-a, 100, 0, 120, 1980", "0, [N/A], 100, 0, 120, 1980",
            "0, GPU-a, 140, 0, 120, 1980", "0, GPU-a, 100, 0, -3, 1980", "0, GPU-a, lots, 0, 120, 1980"})
    void shouldTakeNoReadingFromALineThatIsNotOne(String line) {
        assertThat(NvidiaSmiCsv.reading(line)).isEmpty();
    }

    @Test
    void shouldTellNoDriverFromOtherFailures() {
        assertThat(NvidiaSmiCsv.saysNoDriver(FakeNvidiaSmi.NO_DRIVER)).isTrue();
        assertThat(NvidiaSmiCsv.saysNoDriver("No devices were found")).isTrue();
        assertThat(NvidiaSmiCsv.saysNoDriver("Unable to determine the device handle for GPU0000:00:06.0: GPU is lost"))
                .isFalse();
    }

    @Test
    void shouldListProcessesPerGpuFromTheRecordedAppsQuery() throws IOException {
        String recorded = Files.readString(FakeNvidiaSmi.recorded("nvidia-smi-apps-busy.csv"));
        Map<String, List<Long>> pids = NvidiaSmiCsv.processes(recorded).orElseThrow();

        assertThat(pids).containsOnlyKeys("GPU-fa2badef-49a9-1483-88ed-34afc018aeb1",
                "GPU-74f94dfb-ad46-d469-fbb0-c0b2e470c1d7");
        assertThat(pids.values()).allMatch(p -> p.size() == 1);
        assertThat(NvidiaSmiCsv.processes(recorded + "GPU-fa2badef-49a9-1483-88ed-34afc018aeb1, 700\n")
                .orElseThrow().get("GPU-fa2badef-49a9-1483-88ed-34afc018aeb1")).hasSize(2).contains(700L);
        // no line: no process on any GPU (the recorded idle answer, with the header the collector does not ask for)
        assertThat(NvidiaSmiCsv.processes("")).contains(Map.of());
        // an error message is no count, not zero processes
        assertThat(NvidiaSmiCsv.processes(FakeNvidiaSmi.NO_DRIVER + "\n")).isEmpty();
        // nor is output cut off inside a line (a run killed while it printed)
        assertThat(NvidiaSmiCsv.processes(recorded + "GPU-fa2badef-49a9-1483-88ed-34afc018aeb1, 70")).isEmpty();
    }
}
