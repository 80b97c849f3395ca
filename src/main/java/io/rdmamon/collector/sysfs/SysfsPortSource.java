package io.rdmamon.collector.sysfs;

import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.model.PortSample;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The collector loop's view of sysfs: one call per pass gives a {@link PortSample} per port with rates, plus which
 * devices exist and which of them sysfs can give traffic for. Keeps a {@link PortRateTracker} per port; a device or
 * port that vanishes loses its state, and one that comes back starts over with a first sample.
 *
 * <p>Device-level {@code hw_counters/}: on a single-port device (eRDMA) they belong to the port and fill in what the
 * port's own folder lacks; on a multi-port device only their error counters are kept, on the lowest-numbered port,
 * because a record names a port and traffic must not be attributed to the wrong one.
 *
 * <p>Device filters are regular expressions matched against the whole device name; {@code null} means no filter.
 * Not thread-safe: one sampling thread.
 */
public final class SysfsPortSource {
    private static final Logger log = LoggerFactory.getLogger(SysfsPortSource.class);

    private final SysfsRdmaReader reader;
    private final String node;
    private final Pattern include;
    private final Pattern exclude;
    private final ReadProblems problems;
    private final Map<String, Boolean> accepted = new HashMap<>();
    private final Map<String, PortRateTracker> trackers = new HashMap<>();
    private Set<String> previousDevices;

    /** Keeps files open only when the root is a sysfs mount; scans every device on every pass. */
    public SysfsPortSource(Path sysfsRoot, String node, Pattern include, Pattern exclude, MeterRegistry registry) {
        this(sysfsRoot, node, include, exclude, registry, isSysfs(sysfsRoot), 0);
    }

    /**
     * @param keepOpen keep files open between passes (see {@link SysfsFiles#SysfsFiles(ReadProblems, boolean)})
     * @param rescanMs how long a device's folder listings and static attributes are kept (see {@link SysfsRdmaReader})
     */
    public SysfsPortSource(Path sysfsRoot, String node, Pattern include, Pattern exclude, MeterRegistry registry,
                           boolean keepOpen, long rescanMs) {
        this.problems = new ReadProblems(registry);
        this.reader = new SysfsRdmaReader(sysfsRoot, new SysfsFiles(problems, keepOpen), rescanMs);
        this.node = node;
        this.include = include;
        this.exclude = exclude;
    }

    /**
     * Reads every included device once.
     *
     * @param wallMs    the records' {@code ts} (epoch ms)
     * @param monoNanos a monotonic clock ({@link System#nanoTime()}) the intervals are measured with
     * @throws SysfsUnavailableException when the sysfs root is missing; no RDMA device gives an empty pass
     */
    public SysfsPass sample(long wallMs, long monoNanos) {
        List<PortSample> samples = new ArrayList<>();
        List<DeviceReading> readings = new ArrayList<>();
        Set<String> devices = new TreeSet<>();
        Set<String> withTraffic = new TreeSet<>();
        Set<String> livePorts = new HashSet<>();
        for (String name : reader.devices()) {
            if (!accepts(name)) {
                continue;
            }
            DeviceReading device = readDevice(name, monoNanos);
            if (device == null) {
                continue;
            }
            devices.add(name);
            readings.add(device);
            int firstPort = device.ports().isEmpty() ? -1 : device.ports().get(0).port();
            for (PortReading raw : device.ports()) {
                PortReading port = withDeviceCounters(device, raw, raw.port() == firstPort);
                if (TrafficCounter.TX_BYTES.isKnown(port) || TrafficCounter.RX_BYTES.isKnown(port)) {
                    withTraffic.add(name);
                }
                String key = name + "/" + port.port();
                livePorts.add(key);
                PortSample sample = trackers.computeIfAbsent(key, k -> new PortRateTracker(node))
                        .next(port, wallMs, monoNanos);
                warnIfCachedLongerThanInterval(key, port, sample.intervalMs());
                samples.add(sample);
            }
        }
        reader.endPass(devices);
        trackers.keySet().retainAll(livePorts);
        logDeviceChanges(devices);
        return new SysfsPass(samples, devices, withTraffic, readings);
    }

    public ReadProblems problems() {
        return problems;
    }

    private DeviceReading readDevice(String name, long monoNanos) {
        try {
            return reader.readDevice(name, monoNanos);
        } catch (RuntimeException e) {
            // a device must never take the others down with it (node_exporter's lesson)
            problems.error(name, reader.root().resolve("class/infiniband").resolve(name), "read failed: " + e);
            return null;
        }
    }

    private boolean accepts(String device) {
        return accepted.computeIfAbsent(device, d -> {
            boolean in = (include == null || include.matcher(d).matches())
                    && (exclude == null || !exclude.matcher(d).matches());
            if (!in) {
                problems.note("filtered|" + d, "device " + d + " skipped by the device include/exclude patterns");
            }
            return in;
        });
    }

    static PortReading withDeviceCounters(DeviceReading device, PortReading port, boolean firstPort) {
        boolean single = device.ports().size() == 1;
        if (device.hw().size() == 0 || !(single || firstPort)) {
            return port;
        }
        return port.withDeviceCounters(device.hw(), single);
    }

    private void warnIfCachedLongerThanInterval(String key, PortReading port, long intervalMs) {
        Long lifespan = port.hwLifespanMs();
        if (lifespan != null && intervalMs > 0 && intervalMs < lifespan) {
            problems.note("lifespan|" + key, key + ": hw_counters are cached for " + lifespan
                    + " ms (hw_counters/lifespan), longer than the sampling interval of " + intervalMs
                    + " ms: their rates will alternate between 0 and bursts; lower lifespan or sample less often");
        }
    }

    private void logDeviceChanges(Set<String> devices) {
        if (previousDevices == null) {
            log.info("sysfs {}: RDMA devices {}", reader.root(), devices);
        } else if (!previousDevices.equals(devices)) {
            Set<String> gone = new TreeSet<>(previousDevices);
            gone.removeAll(devices);
            Set<String> added = new TreeSet<>(devices);
            added.removeAll(previousDevices);
            log.info("sysfs {}: RDMA devices now {} (gone {}, new {})", reader.root(), devices, gone, added);
        }
        previousDevices = devices;
    }

    /** Whether the root is a real sysfs mount, whose files may stay open between passes (see {@link SysfsFiles}). */
    public static boolean isSysfs(Path root) {
        try {
            return "sysfs".equals(Files.getFileStore(root).type());
        } catch (IOException e) {
            return false;
        }
    }
}
