package io.rdmamon.sink;

import io.rdmamon.model.CounterClass;
import io.rdmamon.model.PortSample;

import java.util.Locale;
import java.util.regex.Pattern;

import static io.rdmamon.influx.Schema.*;

/** {@link PortSample} → one {@code rdma_port} point plus one {@code rdma_port_errors} point per counter increment. */
public final class PortSamplePoints implements PointConverter<PortSample> {
    // compiled once: activeFlag runs for every port sample and link health record
    private static final Pattern SYSFS_NUMBER = Pattern.compile("^\\d+\\s*:\\s*");
    private static final Pattern EADM_NUMBER = Pattern.compile("\\s*\\(\\d+\\)$");
    private static final Pattern PORT_PREFIX = Pattern.compile("^PORT_");

    @Override
    public Class<PortSample> type() {
        return PortSample.class;
    }

    @Override
    public void render(PortSample s, PointLines points) {
        PointConverter.checkVersion(s.v(), PortSample.VERSION);
        PointConverter.required(s.node(), "node");
        PointConverter.required(s.device(), "device");
        PointConverter.requiredTime(s.ts(), "ts");
        SchemaPoint.of(RDMA_PORT, s.ts())
                .tag(NODE, s.node()).tag(DEVICE, s.device()).tag(PORT, s.port())
                .tag(SOURCE, s.source()).tag(LINK_LAYER, s.linkLayer())
                .field(INTERVAL_SECONDS, s.intervalMs() / 1000.0)
                .field(STATE, s.state())
                .field(PHYS_STATE, s.physState())
                .field(ACTIVE, activeFlag(s.state()))
                .field(RATE_BYTES_PER_SEC, s.rateBytesPerSec())
                .field(TX_BYTES_PER_SEC, s.txBytesPerSec())
                .field(RX_BYTES_PER_SEC, s.rxBytesPerSec())
                .field(TX_PACKETS_PER_SEC, s.txPacketsPerSec())
                .field(RX_PACKETS_PER_SEC, s.rxPacketsPerSec())
                .addTo(points);
        s.errors().forEach((counter, increment) -> SchemaPoint.of(RDMA_PORT_ERRORS, s.ts())
                .tag(NODE, s.node()).tag(DEVICE, s.device()).tag(PORT, s.port()).tag(SOURCE, s.source())
                .tag(COUNTER, counter)
                .tag(ERROR_CLASS, CounterClass.of(counter).map(CounterClass::wireName).orElse(UNCLASSIFIED))
                .field(INCREMENT, increment)
                .addTo(points));
    }

    /**
     * 1 when a port state means ACTIVE, 0 otherwise, null when unknown. Accepts the normalised name and the raw sysfs
     * ({@code 4: ACTIVE}) and eadm ({@code PORT_ACTIVE (4)}) spellings.
     */
    static Long activeFlag(String state) {
        if (state == null || state.isBlank()) {
            return null;
        }
        if (state.equals("ACTIVE")) {
            return 1L; // the normalised name, which collectors send: no need for the three patterns
        }
        String name = state.strip().toUpperCase(Locale.ROOT);
        name = SYSFS_NUMBER.matcher(name).replaceFirst("");
        name = EADM_NUMBER.matcher(name).replaceFirst("");
        name = PORT_PREFIX.matcher(name).replaceFirst("");
        return name.equals("ACTIVE") ? 1L : 0L;
    }
}
