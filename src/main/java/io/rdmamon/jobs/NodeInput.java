package io.rdmamon.jobs;

import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.PortSample;

/**
 * What reaches {@link NodeAssigner}, all in one node's partition: a port sample (key {@code node/device/port}), a host
 * sample (key {@code node/iface}), or a change of a job's hold on a device or node (key {@code node/device} or
 * {@code node/*}). Exactly one field is set.
 */
public record NodeInput(PortSample port, HostIfaceSample host, HolderUpdate update) {
    public static NodeInput of(PortSample port) {
        return new NodeInput(port, null, null);
    }

    public static NodeInput of(HostIfaceSample host) {
        return new NodeInput(null, host, null);
    }

    public static NodeInput of(HolderUpdate update) {
        return new NodeInput(null, null, update);
    }
}
