package io.rdmamon.detect;

import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.config.StoreType;
import io.rdmamon.jobs.AssignedInput;
import io.rdmamon.jobs.AssignedSample;
import io.rdmamon.model.Alert;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Judges each assigned port sample: whether it becomes a {@code rdma.link-health} record ({@link LinkHealthCadence})
 * and what each {@link PortDetector} concludes (LINK_DOWN, LINK_DEGRADED, LINK_IDLE). All of it is per port, and a
 * port's last published verdict and detector states are found with one lookup per sample, not one for the cadence
 * and one for each detector: at 8 NICs a node, those lookups in separate maps of thousands of ports were the largest
 * part of the per-sample work after decoding.
 *
 * <p>Each detector keeps its own stores ({@link DetectorStores}, the same changelogs as when each ran as a processor
 * of its own). The port map mirrors their states and is filled from them on each port's first sample after a start or
 * a restore; it is rebuilt at every {@link #init}, which Kafka Streams calls again when it revives a task.
 */
public final class PortJudge implements Processor<String, AssignedInput, String, PortVerdict> {

    /** One port: what was last published for it, and each detector's state, in the order of the detectors. */
    private static final class Port {
        LinkHealthCadence.Published published;
        final Object[] states;

        Port(Object[] states) {
            this.states = states;
        }
    }

    /** A detector with its stores, typed together. */
    private static final class Check<S> {
        final PortDetector<S> detector;
        DetectorStores<S> stores;

        Check(PortDetector<S> detector) {
            this.detector = detector;
        }

        void init(ProcessorContext<?, ?> context) {
            stores = new DetectorStores<>(detector, context);
        }
    }

    private final LinkHealthCadence cadence;
    private final List<Check<?>> checks = new ArrayList<>();
    private final AlertOutput output;
    private final Map<String, Port> ports = new HashMap<>();
    /** One instance, not a new method reference for every sample a detector has a result for. */
    private final Consumer<Alert> publish = this::publish;
    private ProcessorContext<String, PortVerdict> context;

    private PortJudge(long linkHealthIntervalMs, List<PortDetector<?>> detectors, AlertOutput output) {
        this.cadence = new LinkHealthCadence(linkHealthIntervalMs);
        detectors.forEach(d -> checks.add(new Check<>(d)));
        this.output = output;
    }

    /**
     * @param linkHealthIntervalMs {@code streams.link.health.interval.ms}
     * @param detectors            run in this order on every sample; their alerts come out in it
     */
    public static ProcessorSupplier<String, AssignedInput, String, PortVerdict> supplier(
            long linkHealthIntervalMs, List<PortDetector<?>> detectors, MeterRegistry registry, StoreType storeType) {
        AlertOutput output = new AlertOutput(registry);
        List<PortDetector<?>> fixed = List.copyOf(detectors);
        return new ProcessorSupplier<>() {
            @Override
            public Processor<String, AssignedInput, String, PortVerdict> get() {
                return new PortJudge(linkHealthIntervalMs, fixed, output);
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                Set<StoreBuilder<?>> stores = new HashSet<>();
                fixed.forEach(d -> stores.addAll(DetectorStores.builders(d, storeType)));
                return stores;
            }
        };
    }

    @Override
    public void init(ProcessorContext<String, PortVerdict> context) {
        this.context = context;
        ports.clear();
        checks.forEach(check -> check.init(context));
    }

    @Override
    public void process(Record<String, AssignedInput> record) {
        AssignedInput in = record.value();
        if (in.port() == null) {
            return;
        }
        AssignedSample sample = new AssignedSample(in.port(), in.assignment());
        // decode keys every port sample node/device/port (PortSample#key), and nothing re-keys it before here
        String key = record.key() != null ? record.key() : sample.sample().key();
        Port port = ports.get(key);
        if (port == null) {
            port = load(key);
            ports.put(key, port);
        }
        LinkHealthCadence.Published published = cadence.publish(port.published, sample);
        if (published != null) {
            port.published = published;
            context.forward(new Record<>(key, PortVerdict.of(LinkHealths.of(sample)), record.timestamp()));
        }
        for (int i = 0; i < checks.size(); i++) {
            inspect(checks.get(i), port, i, key, sample, record.timestamp());
        }
    }

    @Override
    public void close() {
        ports.clear();
    }

    private Port load(String key) {
        Object[] states = new Object[checks.size()];
        for (int i = 0; i < states.length; i++) {
            states[i] = checks.get(i).stores.get(key);
        }
        return new Port(states);
    }

    @SuppressWarnings("unchecked") // states[i] is only ever set from checks.get(i), whose state type is S
    private <S> void inspect(Check<S> check, Port port, int i, String key, AssignedSample sample, long ts) {
        S before = (S) port.states[i];
        Result<S> result = check.detector.inspect(before, sample, ts);
        if (result != null) {
            check.stores.apply(key, before, result, publish);
            port.states[i] = result.state();
        }
    }

    private void publish(Alert alert) {
        context.forward(output.record(alert).withValue(PortVerdict.of(alert)));
    }
}
