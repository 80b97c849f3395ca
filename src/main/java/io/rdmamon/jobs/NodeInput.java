package io.rdmamon.jobs;

import io.rdmamon.model.GpuSample;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.PortSample;

/**
 * What reaches {@link NodeAssigner}, all in one node's partition: a port sample (key {@code node/device/port}), a host
 * sample (key {@code node/iface}), a GPU sample (key {@code node/gpu}), or a change of a job's hold on a device or node (key {@code node/device} or
 * {@code node/*}). Exactly one field is set.
 */
public record NodeInput(PortSample port, HostIfaceSample host, GpuSample gpu, HolderUpdate update) {
    public static NodeInput of(PortSample port) {
        return new NodeInput(port, null, null, null);
    }

    public static NodeInput of(HostIfaceSample host) {
        return new NodeInput(null, host, null, null);
    }

    public static NodeInput of(GpuSample gpu) {
        return new NodeInput(null, null, gpu, null);
    }

    public static NodeInput of(HolderUpdate update) {
        return new NodeInput(null, null, null, update);
    }

    /** A sample's node (not for a hold change). */
    public String node() {
        return port != null ? port.node() : host != null ? host.node() : gpu.node();
    }

    /** A sample's own time (not for a hold change). */
    public long ts() {
        return port != null ? port.ts() : host != null ? host.ts() : gpu.ts();
    }

    /** The sample at another time: its node's clock corrected. */
    public NodeInput withTs(long ts) {
        return port != null ? of(port.withTs(ts)) : host != null ? of(host.withTs(ts)) : of(gpu.withTs(ts));
    }
}
