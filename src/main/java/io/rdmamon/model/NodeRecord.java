package io.rdmamon.model;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * Whether a Kubernetes node is in the cluster: topic {@link Topics#NODES} (compacted), key = {@link #node()}, record
 * timestamp = {@link #at()}. Published by {@code jobs watch} from its node informer when a Node object is created
 * ({@value #PRESENT}) or deleted ({@value #DELETED}: autoscaler scale-in, a reclaimed spot instance), so a node that
 * comes back under its name is watched again. Read by the stream app: the collector of a node that left is not a
 * silent collector.
 */
@JsonPropertyOrder({"v", "node", "state", "at"})
public record NodeRecord(int v, String node, String state, long at) {
    public static final int VERSION = 1;
    public static final String PRESENT = "Present";
    public static final String DELETED = "Deleted";

    public static NodeRecord present(String node, long at) {
        return new NodeRecord(VERSION, node, PRESENT, at);
    }

    public static NodeRecord deleted(String node, long at) {
        return new NodeRecord(VERSION, node, DELETED, at);
    }

    public boolean deleted() {
        return DELETED.equals(state);
    }
}
