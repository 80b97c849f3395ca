package io.rdmamon.collector.eadm;

import io.rdmamon.collector.EadmRate;
import io.rdmamon.model.PortSample;

import java.util.HashMap;
import java.util.Map;

/**
 * Turns eadm rates into {@link PortSample}s ({@code source = "eadm"}) for devices whose traffic only eadm can see.
 * eadm reports the whole device, and eRDMA devices have one port: the sample is port {@value #PORT}. It carries no
 * error counters (eadm's live view has none), so {@code errors} is empty. Remembers, per device, when it last made a
 * sample, for {@code intervalMs}.
 */
public final class EadmPortSamples {
    public static final int PORT = 1;

    private final Map<String, Long> previousTsMs = new HashMap<>();

    /**
     * The sample published at {@code tsMs} (epoch ms, the pass time) from {@code rate}; {@code intervalMs} is the time
     * since this device's previous eadm sample, 0 on the first.
     */
    public synchronized PortSample toPortSample(String node, EadmRate rate, long tsMs, PortAttributes attributes) {
        Long previous = previousTsMs.put(rate.device(), tsMs);
        long intervalMs = previous == null ? 0 : Math.max(0, tsMs - previous);
        return new PortSample(PortSample.VERSION, node, rate.device(), PORT, tsMs, intervalMs,
                PortSample.SOURCE_EADM, attributes.state(), attributes.physState(), attributes.linkLayer(),
                attributes.rateBytesPerSec(), rate.txBytesPerSec(), rate.rxBytesPerSec(), rate.txPacketsPerSec(),
                rate.rxPacketsPerSec(), Map.of(), Map.of());
    }

    /** Forgets a device that vanished, so that its next sample starts again with {@code intervalMs} 0. */
    public synchronized void forget(String device) {
        previousTsMs.remove(device);
    }
}
