package io.rdmamon.collector.gpu;

import java.util.List;

/**
 * One GPU at one instant. Values are null where the driver gave none; {@code error} says why the GPU's readings
 * failed (NVML: the GPU is lost, needs a reset), its values then null; {@code migDevices}: the uuids of its MIG devices
 * (empty when MIG is off or unknown).
 */
record GpuReading(int index, String uuid, Double utilizationPercent, Double memoryUtilizationPercent,
                  Double powerWatts, Double smClockMHz, List<String> migDevices, String error) {

    GpuReading {
        migDevices = migDevices == null ? List.of() : List.copyOf(migDevices);
    }

    /** A reading as nvidia-smi's GPU query gives it: no MIG devices, no error. */
    GpuReading(int index, String uuid, Double utilizationPercent, Double memoryUtilizationPercent, Double powerWatts,
               Double smClockMHz) {
        this(index, uuid, utilizationPercent, memoryUtilizationPercent, powerWatts, smClockMHz, List.of(), null);
    }
}
