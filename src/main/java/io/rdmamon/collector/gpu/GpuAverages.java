package io.rdmamon.collector.gpu;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The readings of each GPU since the last {@link #take()}, averaged: NVML or nvidia-smi is read several times per
 * collector interval, and the record of an interval is the mean of its readings, each value over the readings that
 * had one.
 * The MIG devices and the error are the latest reading's. Written by the reading thread, taken by the sampling
 * thread.
 */
final class GpuAverages {
    private final Map<Integer, Sums> byIndex = new TreeMap<>();

    synchronized void add(GpuReading r) {
        byIndex.computeIfAbsent(r.index(), i -> new Sums()).add(r);
    }

    /** The mean reading of every GPU read since the last call, by index; a GPU not read since is absent. */
    synchronized List<GpuReading> take() {
        if (byIndex.isEmpty()) {
            return List.of();
        }
        List<GpuReading> out = new ArrayList<>(byIndex.size());
        byIndex.forEach((index, sums) -> out.add(sums.mean(index)));
        byIndex.clear();
        return out;
    }

    private static final class Sums {
        private final double[] sum = new double[4];
        private final int[] count = new int[4];
        private String uuid;
        private List<String> migDevices = List.of();
        private String error;

        void add(GpuReading r) {
            uuid = r.uuid();
            migDevices = r.migDevices();
            // the latest reading says whether the GPU works now: a lost GPU stays lost, one that recovered reads again
            error = r.error();
            add(0, r.utilizationPercent());
            add(1, r.memoryUtilizationPercent());
            add(2, r.powerWatts());
            add(3, r.smClockMHz());
        }

        private void add(int i, Double v) {
            if (v != null) {
                sum[i] += v;
                count[i]++;
            }
        }

        GpuReading mean(int index) {
            return new GpuReading(index, uuid, meanOf(0), meanOf(1), meanOf(2), meanOf(3), migDevices, error);
        }

        private Double meanOf(int i) {
            // two decimals, as nvidia-smi prints them: a mean's 15 digits would only be noise in every record
            return count[i] == 0 ? null : Math.round(sum[i] / count[i] * 100) / 100.0;
        }
    }
}
