package io.rdmamon.collector.gpu;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * nvidia-smi's CSV output ({@code --format=csv,noheader,nounits}): the GPU query's lines, e.g. {@code 0,
 * GPU-fa2badef-49a9-1483-88ed-34afc018aeb1, 100, 0, 141.74, 1980}, and the compute-apps query's {@code <gpu uuid>,
 * <pid>}. A value nvidia-smi cannot give is written in brackets ({@code [N/A]}, {@code [Not Supported]}, {@code [GPU
 * is lost]}, {@code [Unknown Error]}) and becomes null, never 0.
 */
final class NvidiaSmiCsv {
    /** The GPU query, in the order of {@link GpuReading}'s fields. */
    static final String GPU_FIELDS = "index,uuid,utilization.gpu,utilization.memory,power.draw,clocks.sm";
    static final String APPS_FIELDS = "gpu_uuid,pid";
    static final String FORMAT = "csv,noheader,nounits";

    private static final Pattern SEPARATOR = Pattern.compile("\\s*,\\s*");
    /** What nvidia-smi prints where the driver cannot be reached or there is no GPU: the source is then off. */
    private static final Pattern NO_DRIVER = Pattern.compile(
            "NVIDIA-SMI has failed|couldn't communicate with the NVIDIA driver|No devices were found"
                    + "|libnvidia-ml\\.so.*(not found|cannot open)|Failed to initialize NVML");

    private NvidiaSmiCsv() {
    }

    /** A GPU query line, or empty when the line is not one (an error message, garbage). */
    static Optional<GpuReading> reading(String line) {
        String[] f = SEPARATOR.split(line.trim(), -1);
        if (f.length != 6 || f[1].isEmpty() || f[1].startsWith("[")) {
            return Optional.empty();
        }
        int index;
        try {
            index = Integer.parseInt(f[0]);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        if (index < 0) {
            return Optional.empty();
        }
        Double util = value(f[2]);
        Double memUtil = value(f[3]);
        Double power = value(f[4]);
        Double sm = value(f[5]);
        if (outside(util, 0, 100) || outside(memUtil, 0, 100) || outside(power, 0, Double.MAX_VALUE)
                || outside(sm, 0, Double.MAX_VALUE)) {
            return Optional.empty();
        }
        return Optional.of(new GpuReading(index, f[1], util, memUtil, power, sm));
    }

    /**
     * Compute processes per GPU uuid from the apps query's whole output (no line: no process on any GPU). Empty when
     * a line is not {@code <uuid>, <pid>}: a count from output that is partly an error message is not trusted.
     */
    static Optional<Map<String, Integer>> processes(String output) {
        return pids(output).map(pids -> {
            Map<String, Integer> counts = new HashMap<>();
            pids.forEach((uuid, set) -> counts.put(uuid, set.size()));
            return counts;
        });
    }

    /** The compute processes' ids per GPU uuid, on the same terms as {@link #processes}. */
    static Optional<Map<String, Set<Integer>>> pids(String output) {
        Map<String, Set<Integer>> pids = new HashMap<>();
        for (String line : output.split("\\R")) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = SEPARATOR.split(line.trim(), -1);
            if (f.length != 2 || !f[0].startsWith("GPU-") || !f[1].matches("\\d{1,9}")) {
                return Optional.empty();
            }
            pids.computeIfAbsent(f[0], k -> new HashSet<>()).add(Integer.parseInt(f[1]));
        }
        return Optional.of(pids);
    }

    /** Whether a line says that there is no NVIDIA driver, or no GPU, to read. */
    static boolean saysNoDriver(String line) {
        return NO_DRIVER.matcher(line).find();
    }

    private static Double value(String field) {
        if (field.isEmpty() || field.startsWith("[") || field.equals("N/A")) {
            return null;
        }
        try {
            double v = Double.parseDouble(field);
            return Double.isFinite(v) ? v : null;
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    /** NaN (garbage where a number belongs) is outside every range. */
    private static boolean outside(Double v, double min, double max) {
        return v != null && !(v >= min && v <= max);
    }
}
