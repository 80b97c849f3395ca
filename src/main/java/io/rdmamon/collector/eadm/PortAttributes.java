package io.rdmamon.collector.eadm;

/**
 * What sysfs knows about a port besides its counters, for decorating eadm-sourced samples; every field {@code null}
 * when unknown (e.g. sysfs shows nothing for the device).
 */
public record PortAttributes(String state, String physState, String linkLayer, Long rateBytesPerSec) {
    public static final PortAttributes UNKNOWN = new PortAttributes(null, null, null, null);
}
