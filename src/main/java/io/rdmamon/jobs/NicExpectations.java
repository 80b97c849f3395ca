package io.rdmamon.jobs;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * What an operator expects one NIC to carry, in bytes per second in one direction: for instance the bus bandwidth
 * nccl-tests' {@code all_reduce_perf} measured on that instance type. Set per Kubernetes instance type
 * ({@code node.kubernetes.io/instance-type}, which {@code jobs watch} puts on each rank) or per device type (the
 * device name without its index: {@code mlx5_1} → {@code mlx5}, {@code erdma_0} → {@code erdma}); the instance type
 * wins, because the same NIC reaches different figures on different machines (PCIe topology, GPUs per NIC).
 *
 * @param byInstanceType instance type → bytes/s per NIC
 * @param byDeviceType   device type → bytes/s per NIC
 */
public record NicExpectations(Map<String, Double> byInstanceType, Map<String, Double> byDeviceType) {
    public static final NicExpectations NONE = new NicExpectations(Map.of(), Map.of());
    /** A device's index, with the underscore before it if there is one. */
    private static final Pattern INDEX = Pattern.compile("_?\\d+$");

    public NicExpectations {
        byInstanceType = Map.copyOf(byInstanceType);
        byDeviceType = Map.copyOf(byDeviceType);
    }

    /** The figure for a port of {@code device} on a node of {@code instanceType} (null if unknown); null if none. */
    public Double expected(String instanceType, String device) {
        Double byInstance = instanceType == null ? null : byInstanceType.get(instanceType);
        return byInstance != null ? byInstance : byDeviceType.get(deviceType(device));
    }

    /** {@code mlx5_1} → {@code mlx5}, {@code erdma_0} → {@code erdma}, {@code rxe0} → {@code rxe}. */
    public static String deviceType(String device) {
        return INDEX.matcher(device).replaceFirst("");
    }

    /**
     * {@code type=bytesPerSec} entries, e.g. {@code ecs.ebmgn7ex=14.4e9}.
     *
     * @throws IllegalArgumentException naming the entry that is not of that form or whose figure is not above 0
     */
    public static Map<String, Double> parse(List<String> entries) {
        Map<String, Double> out = new TreeMap<>();
        for (String entry : entries) {
            int eq = entry.lastIndexOf('=');
            String type = eq < 0 ? "" : entry.substring(0, eq).trim();
            double value;
            try {
                value = eq < 0 ? Double.NaN : Double.parseDouble(entry.substring(eq + 1).trim());
            } catch (NumberFormatException e) {
                value = Double.NaN;
            }
            if (type.isEmpty() || !(value > 0) || Double.isInfinite(value)) {
                throw new IllegalArgumentException("'" + entry + "' is not type=bytesPerSec with a figure above 0, "
                        + "e.g. ecs.ebmgn7ex=14.4e9");
            }
            out.put(type, value);
        }
        return out;
    }
}
