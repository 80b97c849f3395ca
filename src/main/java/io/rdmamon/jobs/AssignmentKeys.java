package io.rdmamon.jobs;

/**
 * Keys of the assignment table. Devices are {@code node/device}; a node's whole set of jobs sits under
 * {@code node/*} (no RDMA device is named "*"), so host-interface samples join the same table as port samples.
 */
public final class AssignmentKeys {
    private static final String NODE_SUFFIX = "/*";

    private AssignmentKeys() {
    }

    public static String device(String node, String device) {
        return node + "/" + device;
    }

    public static String node(String node) {
        return node + NODE_SUFFIX;
    }
}
