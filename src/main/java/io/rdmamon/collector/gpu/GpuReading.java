package io.rdmamon.collector.gpu;

/** One line of nvidia-smi's GPU query: one GPU at one instant. Values are null where the driver gave none. */
record GpuReading(int index, String uuid, Double utilizationPercent, Double memoryUtilizationPercent,
                  Double powerWatts, Double smClockMHz) {
}
