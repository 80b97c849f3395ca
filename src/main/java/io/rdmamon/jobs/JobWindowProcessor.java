package io.rdmamon.jobs;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.config.StoreType;
import io.rdmamon.model.JsonSerde;
import io.rdmamon.model.PortSample;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Tumbling event-time windows of each job's per-port traffic, each emitted once, when complete.
 *
 * <p>A window closes when every port of the job that is still reporting has sent a sample at or past the window's end
 * (plus {@code grace}). Each port's samples stay in order all the way here (one upstream task per port), so that is
 * exact; the task's stream time is not used, because after a restart with a backlog, upstream tasks catch up at
 * different speeds and stream time runs far ahead of the slower ports. A port from which nothing arrived for
 * {@code portTimeout} of wall time (a silent collector, a job that let the device go) is no longer waited for; a
 * sample for an already closed window is counted ({@code rdmamon_streams_late_samples_total}) and left out.
 *
 * <p>Stores: {@code uid|start|node/device/port} → the port's sums in that window (one small entry per sample's
 * window, so a sample costs one read and one write whatever the job's size); {@code uid|node/device/port} → the
 * port's newest sample time; {@code uid} → end of the last window emitted.
 */
public final class JobWindowProcessor implements Processor<String, JobEvent, String, JobWindow> {
    static final String WINDOWS_STORE = "job-window-ports";
    static final String PROGRESS_STORE = "job-window-progress";
    static final String CLOSED_STORE = "job-window-closed";
    private static final int START_DIGITS = 13;
    private static final long FORGET_PORT_MS = 3_600_000;
    private static final StringSerializer KEYS = new StringSerializer();

    private final long sizeMs;
    private final long graceMs;
    private final long portTimeoutMs;
    private final Duration checkInterval;
    private final Counter lateSamples;
    private final Map<String, Long> arrivedAt = new HashMap<>();
    private ProcessorContext<String, JobWindow> context;
    private KeyValueStore<String, PortWindow> windows;
    private KeyValueStore<String, Long> progress;
    private KeyValueStore<String, Long> closed;
    private long startedAt;

    private JobWindowProcessor(long sizeMs, long graceMs, long portTimeoutMs, Duration checkInterval,
                               Counter lateSamples) {
        this.sizeMs = sizeMs;
        this.graceMs = graceMs;
        this.portTimeoutMs = portTimeoutMs;
        this.checkInterval = checkInterval;
        this.lateSamples = lateSamples;
    }

    /**
     * @param size         window length
     * @param grace        extra wait after every reporting port passed the window end
     * @param portTimeout  wall time after which a port that sent nothing is no longer waited for
     * @param checkInterval wall-clock period of the completeness check
     */
    public static ProcessorSupplier<String, JobEvent, String, JobWindow> supplier(Duration size, Duration grace,
                                                                                  Duration portTimeout,
                                                                                  Duration checkInterval,
                                                                                  MeterRegistry registry,
                                                                                  StoreType storeType) {
        Counter late = Counter.builder("rdmamon.streams.late.samples")
                .description("Samples that arrived after their job-bandwidth window was emitted (left out of it)")
                .register(registry);
        return new ProcessorSupplier<>() {
            @Override
            public Processor<String, JobEvent, String, JobWindow> get() {
                return new JobWindowProcessor(size.toMillis(), grace.toMillis(), portTimeout.toMillis(),
                        checkInterval, late);
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return Set.of(
                        Stores.keyValueStoreBuilder(storeType.keyValue(WINDOWS_STORE), Serdes.String(),
                                JsonSerde.of(PortWindow.class)).withCachingEnabled(),
                        Stores.keyValueStoreBuilder(storeType.keyValue(PROGRESS_STORE), Serdes.String(),
                                Serdes.Long()).withCachingEnabled(),
                        Stores.keyValueStoreBuilder(storeType.keyValue(CLOSED_STORE), Serdes.String(),
                                Serdes.Long()).withCachingEnabled());
            }
        };
    }

    @Override
    public void init(ProcessorContext<String, JobWindow> context) {
        this.context = context;
        this.windows = context.getStateStore(WINDOWS_STORE);
        this.progress = context.getStateStore(PROGRESS_STORE);
        this.closed = context.getStateStore(CLOSED_STORE);
        this.startedAt = context.currentSystemTimeMs();
        context.schedule(checkInterval, PunctuationType.WALL_CLOCK_TIME, this::closeCompleteWindows);
    }

    @Override
    public void process(Record<String, JobEvent> record) {
        JobSample js = record.value().port();
        if (js == null) {
            return;
        }
        String uid = record.key();
        PortSample s = js.sample();
        String portKey = uid + "|" + s.key();
        Long newest = progress.get(portKey);
        if (newest == null || record.timestamp() > newest) {
            progress.put(portKey, record.timestamp());
        }
        arrivedAt.put(portKey, context.currentSystemTimeMs());
        if (s.txBytesPerSec() == null && s.rxBytesPerSec() == null) {
            return;
        }
        long start = record.timestamp() - Math.floorMod(record.timestamp(), sizeMs);
        Long closedUntil = closed.get(uid);
        if (closedUntil != null && start < closedUntil) {
            lateSamples.increment();
            return;
        }
        String key = uid + "|" + pad(start) + "|" + s.key();
        PortWindow current = windows.get(key);
        windows.put(key, (current == null ? PortWindow.empty(js) : current).add(js));
    }

    /** For each job: how far every reporting port has got, and which windows that completes. */
    private void closeCompleteWindows(long wallNow) {
        Map<String, Long> reachedByAll = new TreeMap<>();
        List<KeyValue<String, Long>> ports = new ArrayList<>();
        try (KeyValueIterator<String, Long> it = progress.all()) {
            it.forEachRemaining(ports::add);
        }
        for (KeyValue<String, Long> port : ports) {
            String uid = port.key.substring(0, port.key.lastIndexOf('|'));
            long silentFor = wallNow - arrivedAt.getOrDefault(port.key, startedAt);
            if (silentFor >= FORGET_PORT_MS) {
                progress.delete(port.key);
                arrivedAt.remove(port.key);
            }
            boolean waitedFor = silentFor < portTimeoutMs;
            reachedByAll.merge(uid, waitedFor ? port.value : Long.MAX_VALUE, Math::min);
        }
        reachedByAll.forEach((uid, reached) -> emitUpTo(uid, reached == Long.MAX_VALUE ? reached : reached - graceMs));
        List<String> gone = new ArrayList<>();
        try (KeyValueIterator<String, Long> it = closed.all()) {
            it.forEachRemaining(kv -> {
                if (!reachedByAll.containsKey(kv.key)) {
                    gone.add(kv.key);
                }
            });
        }
        gone.forEach(closed::delete);
    }

    private void emitUpTo(String uid, long reached) {
        Map<Long, List<KeyValue<String, PortWindow>>> due = new TreeMap<>();
        try (KeyValueIterator<String, PortWindow> it = windows.prefixScan(uid + "|", KEYS)) {
            it.forEachRemaining(kv -> {
                String rest = kv.key.substring(0, kv.key.lastIndexOf('|'));
                if (rest.length() != uid.length() + 1 + START_DIGITS) {
                    return; // another job whose uid starts with "uid|"
                }
                long start = Long.parseLong(rest.substring(rest.length() - START_DIGITS));
                if (start + sizeMs <= reached) {
                    due.computeIfAbsent(start, k -> new ArrayList<>()).add(kv);
                }
            });
        }
        due.forEach((start, entries) -> {
            entries.forEach(kv -> windows.delete(kv.key));
            PortWindow first = entries.get(0).value;
            JobWindow window = new JobWindow(uid, first.job(), first.namespace(), start, start + sizeMs,
                    first.expectedRanks(), entries.stream().map(kv -> kv.value).toList());
            context.forward(new Record<>(uid, window, start + sizeMs));
            Long closedUntil = closed.get(uid);
            if (closedUntil == null || start + sizeMs > closedUntil) {
                closed.put(uid, start + sizeMs);
            }
        });
    }

    private static String pad(long start) {
        String digits = Long.toString(start);
        return "0".repeat(Math.max(0, START_DIGITS - digits.length())) + digits;
    }
}
