package io.rdmamon.sink;

import io.rdmamon.influx.Schema;
import io.rdmamon.model.CounterClass;
import io.rdmamon.model.LinkHealth;

import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;

import static io.rdmamon.influx.Schema.*;

/** {@link LinkHealth} → one {@code link_health} point, error increments as one field per {@link CounterClass}. */
final class LinkHealthPoints implements PointConverter<LinkHealth> {
    private static final Map<String, String> FIELD_BY_CLASS = Arrays.stream(CounterClass.values())
            .collect(Collectors.toUnmodifiableMap(CounterClass::wireName, Schema::errorsField));

    @Override
    public Class<LinkHealth> type() {
        return LinkHealth.class;
    }

    @Override
    public void render(LinkHealth h, PointLines points) {
        PointConverter.checkVersion(h.v(), LinkHealth.VERSION);
        PointConverter.required(h.node(), "node");
        PointConverter.required(h.device(), "device");
        PointConverter.requiredTime(h.ts(), "ts");
        SchemaPoint point = SchemaPoint.of(LINK_HEALTH, h.ts())
                .tag(NODE, h.node()).tag(DEVICE, h.device()).tag(PORT, h.port())
                .tag(JOB_UID, h.job()).tag(NAMESPACE, h.namespace())
                .field(STATE, h.state())
                .field(PHYS_STATE, h.physState())
                .field(ACTIVE, PortSamplePoints.activeFlag(h.state()))
                .field(RATE_BYTES_PER_SEC, h.rateBytesPerSec())
                .field(TX_BYTES_PER_SEC, h.txBytesPerSec())
                .field(RX_BYTES_PER_SEC, h.rxBytesPerSec())
                .field(TX_UTILISATION, h.txUtilisation())
                .field(RX_UTILISATION, h.rxUtilisation())
                .field(UTILISATION, larger(h.txUtilisation(), h.rxUtilisation()))
                .field(SHARED_BY, h.sharedBy() == null ? null : (long) h.sharedBy());
        Map<String, Long> byField = h.errorClasses().entrySet().stream()
                .filter(e -> e.getValue() != null)
                .collect(Collectors.groupingBy(e -> FIELD_BY_CLASS.getOrDefault(e.getKey(), ERRORS_OTHER),
                        Collectors.summingLong(Map.Entry::getValue)));
        byField.forEach(point::field);
        point.addTo(points);
    }

    private static Double larger(Double tx, Double rx) {
        if (tx == null) {
            return rx;
        }
        return rx == null ? tx : Math.max(tx, rx);
    }
}
