package io.rdmamon.collector.gpu;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * nvidia-smi's CSV output ({@code --format=csv,noheader,nounits}): the GPU query's lines, e.g. {@code 0,
 * GPU-fa2badef-49a9-1483-88ed-34afc018aeb1, 100, 0, 141.74, 1980}, and the compute-apps query's {@code <gpu uuid>,
 * <pid>}. A value nvidia-smi cannot give is written in brackets ({@code [N/A]}, {@code [Not Supported]}, {@code [GPU
 * is lost]}, {@code [Unknown Error]}) and becomes null, never 0; a failure (not {@code [N/A]} or {@code [Not
 * Supported]}) is the reading's {@code error}.
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
        return Optional.of(new GpuReading(index, f[1], util, memUtil, power, sm, List.of(), failure(f)));
    }

    /**
     * The pids of the compute processes per GPU uuid from the apps query's whole output (no line: no process on any
     * GPU). Empty when a line is not {@code <uuid>, <pid>}: a count from output that is partly an error message (or
     * cut off) is not trusted.
     */
    static Optional<Map<String, List<Long>>> processes(String output) {
        Map<String, List<Long>> pids = new HashMap<>();
        if (!output.isEmpty() && !output.endsWith("\n")) {
            return Optional.empty(); // the last line was cut off
        }
        for (String line : output.split("\\R")) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = SEPARATOR.split(line.trim(), -1);
            if (f.length != 2 || !f[0].startsWith("GPU-") || !f[1].matches("\\d{1,10}")) {
                return Optional.empty();
            }
            pids.computeIfAbsent(f[0], u -> new ArrayList<>()).add(Long.parseLong(f[1]));
        }
        return Optional.of(pids);
    }

    /** Whether a line says that there is no NVIDIA driver, or no GPU, to read. */
    static boolean saysNoDriver(String line) {
        return NO_DRIVER.matcher(line).find();
    }

    /** nvidia-smi's words for a GPU that fails ({@code [GPU is lost]}, {@code [Unknown Error]}), null otherwise. */
    private static String failure(String[] fields) {
        for (int i = 2; i < fields.length; i++) {
            String f = fields[i];
            if (f.startsWith("[") && f.endsWith("]") && !f.equals("[N/A]") && !f.equals("[Not Supported]")
                    && !f.equals("[Insufficient Permissions]")) {
                return f.substring(1, f.length() - 1);
            }
        }
        return null;
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
