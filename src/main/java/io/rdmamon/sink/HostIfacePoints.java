package io.rdmamon.sink;

import io.rdmamon.model.HostIfaceSample;


import static io.rdmamon.influx.Schema.*;

/** {@link HostIfaceSample} → one {@code host_iface} point plus one {@code host_iface_errors} point per increment. */
final class HostIfacePoints implements PointConverter<HostIfaceSample> {

    @Override
    public Class<HostIfaceSample> type() {
        return HostIfaceSample.class;
    }

    @Override
    public void render(HostIfaceSample s, PointLines points) {
        PointConverter.checkVersion(s.v(), HostIfaceSample.VERSION);
        PointConverter.required(s.node(), "node");
        PointConverter.required(s.iface(), "iface");
        PointConverter.requiredTime(s.ts(), "ts");
        SchemaPoint.of(HOST_IFACE, s.ts())
                .tag(NODE, s.node()).tag(IFACE, s.iface())
                .field(INTERVAL_SECONDS, s.intervalMs() / 1000.0)
                .field(TX_BYTES_PER_SEC, s.txBytesPerSec())
                .field(RX_BYTES_PER_SEC, s.rxBytesPerSec())
                .field(TX_PACKETS_PER_SEC, s.txPacketsPerSec())
                .field(RX_PACKETS_PER_SEC, s.rxPacketsPerSec())
                .addTo(points);
        s.errors().forEach((counter, increment) -> SchemaPoint.of(HOST_IFACE_ERRORS, s.ts())
                .tag(NODE, s.node()).tag(IFACE, s.iface()).tag(COUNTER, counter)
                .field(INCREMENT, increment)
                .addTo(points));
    }
}
