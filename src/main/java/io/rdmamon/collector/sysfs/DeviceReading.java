package io.rdmamon.collector.sysfs;

import java.util.List;
import java.util.Map;

/**
 * One pass over {@code class/infiniband/<device>/}: identity files ({@code null} when absent — {@code hca_type} and
 * {@code board_id} are missing on some drivers), device-level {@code hw_counters/} (raw, unknown values have none) and
 * the ports in ascending order.
 */
public record DeviceReading(
        String device,
        String nodeGuid,
        String fwVer,
        String boardId,
        String hcaType,
        Counters hw,
        List<PortReading> ports) {

    public DeviceReading {
        ports = List.copyOf(ports);
    }

    /** Device-level {@code hw_counters/}: known values by name (for tests and diagnostics). */
    public Map<String, Long> hwCounters() {
        return hw.asMap();
    }

    /** The port with this number, or {@code null}. */
    public PortReading port(int number) {
        for (PortReading port : ports) {
            if (port.port() == number) {
                return port;
            }
        }
        return null;
    }
}
