package io.rdmamon.model;

import java.util.List;

/**
 * Whether a GPU id as the kubelet gives it (a rank's {@code gpus}, from the device plugin through pod-resources)
 * refers to a GPU sample. Device plugins name GPUs in several ways, none of them always the sample's {@code uuid}:
 * <ul>
 * <li>{@code GPU-fa2badef-...}: the uuid itself (the NVIDIA device plugin's default);</li>
 * <li>{@code GPU-fa2badef-...::3}: one time-sliced replica of that GPU (sharing.timeSlicing), the GPU's uuid and a
 * replica number;</li>
 * <li>{@code MIG-8c4e...}: a MIG device (a slice of one GPU); NVML reads utilization for the whole GPU only, so the
 * slice is judged by its parent GPU's sample, which lists the slices' uuids in {@code migDevices}; the older form
 * {@code MIG-GPU-fa2badef-.../1/0} (drivers before R470) names the parent's uuid itself;</li>
 * <li>{@code 0}: the device plugin's index strategy ({@code --device-id-strategy=index}), the GPU's index on the node,
 * the sample's {@code gpu}.</li>
 * </ul>
 */
public final class GpuIds {
    private static final String REPLICA_SEPARATOR = "::";
    private static final String OLD_MIG_PREFIX = "MIG-GPU-";

    private GpuIds() {
    }

    /** Whether {@code id} names the GPU of {@code sample} (or one of its MIG devices or time-sliced replicas). */
    public static boolean refersTo(String id, GpuSample sample) {
        return refersTo(id, sample.uuid(), sample.gpu(), sample.migDevices());
    }

    /** As {@link #refersTo(String, GpuSample)}, for the GPU {@code uuid} at {@code index} with {@code migDevices}. */
    public static boolean refersTo(String id, String uuid, int index, List<String> migDevices) {
        if (id == null || id.isEmpty()) {
            return false;
        }
        String device = withoutReplica(id);
        if (device.equals(uuid)) {
            return true;
        }
        if (device.startsWith(OLD_MIG_PREFIX)) {
            int slash = device.indexOf('/');
            return slash > 0 && device.substring("MIG-".length(), slash).equals(uuid);
        }
        if (migDevices != null && migDevices.contains(device)) {
            return true;
        }
        return isIndex(device) && Integer.parseInt(device) == index;
    }

    /** The id without a time-slicing replica suffix: {@code GPU-a::3} is {@code GPU-a}. */
    static String withoutReplica(String id) {
        int at = id.indexOf(REPLICA_SEPARATOR);
        return at < 0 ? id : id.substring(0, at);
    }

    private static boolean isIndex(String id) {
        if (id.isEmpty() || id.length() > 4) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            if (id.charAt(i) < '0' || id.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }
}
