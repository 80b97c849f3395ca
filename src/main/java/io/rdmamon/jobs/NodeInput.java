package io.rdmamon.jobs;

import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.PortSample;

/** A sample on its way to the assignment join: a port sample (key node/device) or a host sample (key node/*). */
public record NodeInput(PortSample port, HostIfaceSample host) {
    public static NodeInput of(PortSample port) {
        return new NodeInput(port, null);
    }

    public static NodeInput of(HostIfaceSample host) {
        return new NodeInput(null, host);
    }
}
