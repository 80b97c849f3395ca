package io.rdmamon.sink;

import io.rdmamon.model.GpuSample;

import static io.rdmamon.influx.Schema.*;

/**
 * {@link GpuSample} → one {@code gpu} point; a value the driver did not report is left out. The processes' states
 * (letters) are not written: the alert names what a stuck rank shows, the dashboard plots CPU and bytes.
 */
final class GpuSamplePoints implements PointConverter<GpuSample> {

    @Override
    public Class<GpuSample> type() {
        return GpuSample.class;
    }

    @Override
    public void render(GpuSample s, PointLines points) {
        PointConverter.checkVersion(s.v(), GpuSample.VERSION);
        PointConverter.required(s.node(), "node");
        PointConverter.requiredTime(s.ts(), "ts");
        SchemaPoint.of(GPU_SAMPLE, s.ts())
                .tag(NODE, s.node()).tag(GPU, s.gpu()).tag(UUID, s.uuid())
                .field(INTERVAL_SECONDS, s.intervalMs() / 1000.0)
                .field(UTILIZATION_PERCENT, s.utilizationPercent())
                .field(MEMORY_UTILIZATION_PERCENT, s.memoryUtilizationPercent())
                .field(POWER_WATTS, s.powerWatts())
                .field(SM_CLOCK_MHZ, s.smClockMHz())
                .field(PROCESSES, s.processes() == null ? null : s.processes().longValue())
                .field(PROCESS_CPU_CORES, s.processCpuCores())
                .field(PROCESS_READ_BYTES_PER_SEC, s.processReadBytesPerSec())
                .field(PROCESS_WRITE_BYTES_PER_SEC, s.processWriteBytesPerSec())
                .addTo(points);
    }
}
