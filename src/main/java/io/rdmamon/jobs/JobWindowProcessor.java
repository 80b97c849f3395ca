package io.rdmamon.jobs;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.config.StoreType;
import io.rdmamon.model.JsonSerde;
import io.rdmamon.model.PortSample;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Tumbling event-time windows of each job's per-port traffic, emitted once when they close (stream time past end +
 * grace). One small store entry per job, window and port ({@code windowStart|uid|node/device/port}, the start
 * zero-padded so entries sort by time), so a sample costs one read and one write whatever the job's size, and
 * closing a window is one range scan. Samples later than the grace are counted
 * ({@code rdmamon_streams_late_samples_total}) and left out.
 */
public final class JobWindowProcessor implements Processor<String, JobEvent, String, JobWindow> {
    static final String STORE = "job-window-ports";
    private static final int START_DIGITS = 13;

    private final long sizeMs;
    private final long graceMs;
    private final Counter lateSamples;
    private ProcessorContext<String, JobWindow> context;
    private KeyValueStore<String, PortWindow> ports;

    private JobWindowProcessor(long sizeMs, long graceMs, Counter lateSamples) {
        this.sizeMs = sizeMs;
        this.graceMs = graceMs;
        this.lateSamples = lateSamples;
    }

    public static ProcessorSupplier<String, JobEvent, String, JobWindow> supplier(Duration size, Duration grace,
                                                                                  MeterRegistry registry,
                                                                                  StoreType storeType) {
        Counter late = Counter.builder("rdmamon.streams.late.samples")
                .description("Samples that arrived after their job-bandwidth window closed (left out of it)")
                .register(registry);
        return new ProcessorSupplier<>() {
            @Override
            public Processor<String, JobEvent, String, JobWindow> get() {
                return new JobWindowProcessor(size.toMillis(), grace.toMillis(), late);
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return Set.of(Stores.keyValueStoreBuilder(storeType.keyValue(STORE), Serdes.String(),
                        JsonSerde.of(PortWindow.class)).withCachingEnabled());
            }
        };
    }

    @Override
    public void init(ProcessorContext<String, JobWindow> context) {
        this.context = context;
        this.ports = context.getStateStore(STORE);
        context.schedule(Duration.ofMillis(Math.min(1_000, sizeMs)), PunctuationType.STREAM_TIME, this::closeWindows);
    }

    @Override
    public void process(Record<String, JobEvent> record) {
        JobSample js = record.value().port();
        if (js == null) {
            return;
        }
        PortSample s = js.sample();
        if (s.txBytesPerSec() == null && s.rxBytesPerSec() == null) {
            return;
        }
        long start = record.timestamp() - Math.floorMod(record.timestamp(), sizeMs);
        if (start + sizeMs + graceMs <= context.currentStreamTimeMs()) {
            lateSamples.increment();
            return;
        }
        String key = windowKey(start, record.key()) + s.key();
        PortWindow current = ports.get(key);
        ports.put(key, (current == null ? PortWindow.empty(js) : current).add(js));
    }

    private void closeWindows(long streamTime) {
        long lastClosable = streamTime - sizeMs - graceMs;
        if (lastClosable < 0) {
            return;
        }
        List<KeyValue<String, PortWindow>> due = new ArrayList<>();
        try (KeyValueIterator<String, PortWindow> it = ports.range(pad(0), pad(lastClosable) + "|\uffff")) {
            it.forEachRemaining(due::add);
        }
        Map<String, List<PortWindow>> windows = new LinkedHashMap<>();
        for (KeyValue<String, PortWindow> entry : due) {
            windows.computeIfAbsent(windowPrefix(entry.key), k -> new ArrayList<>()).add(entry.value);
            ports.delete(entry.key);
        }
        windows.forEach(this::emit);
    }

    private void emit(String prefix, List<PortWindow> windowPorts) {
        long start = Long.parseLong(prefix.substring(0, START_DIGITS));
        String uid = prefix.substring(START_DIGITS + 1, prefix.length() - 1);
        PortWindow first = windowPorts.get(0);
        JobWindow window = new JobWindow(uid, first.job(), first.namespace(), start, start + sizeMs,
                first.expectedRanks(), windowPorts);
        context.forward(new Record<>(uid, window, start + sizeMs));
    }

    /** {@code 0001700000000000|uid|} */
    private static String windowKey(long start, String uid) {
        return pad(start) + "|" + uid + "|";
    }

    /** The {@code start|uid|} part of a store key: up to the last '|', as port keys (host and device names) have none. */
    private static String windowPrefix(String key) {
        return key.substring(0, key.lastIndexOf('|') + 1);
    }

    private static String pad(long start) {
        String digits = Long.toString(start);
        return "0".repeat(Math.max(0, START_DIGITS - digits.length())) + digits;
    }
}
