package io.rdmamon.scenario;

import java.util.List;

/**
 * A simulated GPU node: its RDMA devices (one port each) at {@code linkBytesPerSec}, and the offset of its
 * collector's sampling clock within each second — real nodes do not sample in lockstep.
 */
public record ClusterNode(String name, List<String> devices, long linkBytesPerSec, long clockOffsetMs) {

    public ClusterNode {
        devices = List.copyOf(devices);
    }
}
