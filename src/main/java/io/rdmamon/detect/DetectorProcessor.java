package io.rdmamon.detect;

import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.config.StoreType;
import io.rdmamon.model.Alert;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Runs one {@link Detector} over a stream: its state per subject and its incidents in {@link DetectorStores}, every
 * state offered to {@link Detector#expire} as stream time passes, alerts out keyed by id with timestamp
 * {@code detectedAt} (firing) or {@code endsAt} (resolved).
 */
public final class DetectorProcessor<V, S> implements Processor<String, V, String, Alert> {
    /** How often, in stream time, every state is offered to {@link Detector#expire}. */
    public static final Duration EXPIRY_INTERVAL = Duration.ofSeconds(10);

    private final Detector<V, S> detector;
    private final AlertOutput output;
    private ProcessorContext<String, Alert> context;
    private DetectorStores<S> stores;
    /** One instance, not a new method reference per record. */
    private final Consumer<Alert> publish = this::publish;

    private DetectorProcessor(Detector<V, S> detector, AlertOutput output) {
        this.detector = detector;
        this.output = output;
    }

    public static <V, S> ProcessorSupplier<String, V, String, Alert> supplier(Detector<V, S> detector,
                                                                              MeterRegistry registry,
                                                                              StoreType storeType) {
        AlertOutput output = new AlertOutput(registry);
        return new ProcessorSupplier<>() {
            @Override
            public Processor<String, V, String, Alert> get() {
                return new DetectorProcessor<>(detector, output);
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return DetectorStores.builders(detector, storeType);
            }
        };
    }

    /** The detector's stores' and processor's name: {@code LINK_DOWN} gives {@code link-down}. */
    public static String storeName(String type) {
        return DetectorStores.storeName(type);
    }

    @Override
    public void init(ProcessorContext<String, Alert> context) {
        this.context = context;
        this.stores = new DetectorStores<>(detector, context);
        context.schedule(EXPIRY_INTERVAL, PunctuationType.STREAM_TIME, this::expireAll);
    }

    @Override
    public void process(Record<String, V> record) {
        String key = detector.stateKey(record.key(), record.value());
        if (key == null) {
            return;
        }
        S before = stores.get(key);
        stores.apply(key, before, detector.inspect(before, record.value(), record.timestamp()), publish);
    }

    private void expireAll(long streamTime) {
        for (Map.Entry<String, S> entry : stores.all().entrySet()) {
            stores.apply(entry.getKey(), entry.getValue(), detector.expire(entry.getValue(), streamTime),
                    publish);
        }
    }

    private void publish(Alert alert) {
        output.publish(context, alert);
    }
}
