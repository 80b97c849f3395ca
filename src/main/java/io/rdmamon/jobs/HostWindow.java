package io.rdmamon.jobs;

import io.rdmamon.model.HostIfaceSample;

/**
 * One host interface of a job's node in one window: bytes (tx + rx) and covered milliseconds over the samples with
 * both rates known, so the window rate is an average over what was measured.
 */
public record HostWindow(double bytes, long ms) {
    public static final HostWindow EMPTY = new HostWindow(0, 0);

    public HostWindow add(HostIfaceSample h) {
        if (h.txBytesPerSec() == null || h.rxBytesPerSec() == null || h.intervalMs() <= 0) {
            return this;
        }
        return new HostWindow(bytes + (h.txBytesPerSec() + h.rxBytesPerSec()) * h.intervalMs() / 1000.0,
                ms + h.intervalMs());
    }

    /** Average tx + rx over the window, null when no sample had both rates. */
    public Double bytesPerSec() {
        return ms == 0 ? null : bytes * 1000.0 / ms;
    }
}
