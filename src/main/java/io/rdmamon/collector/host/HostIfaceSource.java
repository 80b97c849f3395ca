package io.rdmamon.collector.host;

import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.collector.sysfs.Increments;
import io.rdmamon.collector.sysfs.ReadProblems;
import io.rdmamon.collector.sysfs.SysfsFiles;
import io.rdmamon.model.HostIfaceSample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Traffic of the configured host network interfaces (TCP, storage) from
 * {@code class/net/<iface>/statistics/{rx,tx}_{bytes,packets,errors,dropped}}: what later tells a checkpoint pause
 * (storage egress busy, RDMA quiet) from a hang. Same rules as the RDMA ports: first sample and a counter that went
 * down (interface re-created, driver reload) give {@code null} rates; an unknown file gives {@code null}, never 0.
 * An interface that does not exist is skipped with a one-time note and picked up when it appears.
 * Not thread-safe: one sampling thread.
 */
public final class HostIfaceSource {
    /** These counters are the kernel's {@code unsigned long}: 64-bit, they wrap only at 2^64. */
    private static final long ALL_ONES_64 = -1L;
    static final List<String> ERROR_COUNTERS = List.of("rx_errors", "tx_errors", "rx_dropped", "tx_dropped");
    private static final List<String> COUNTERS = List.of("tx_bytes", "rx_bytes", "tx_packets", "rx_packets",
            "rx_errors", "tx_errors", "rx_dropped", "tx_dropped");

    private final Path net;
    private final String node;
    private final List<String> ifaces;
    private final SysfsFiles files;
    private final Map<String, Reading> previous = new HashMap<>();

    private record Reading(Map<String, Long> values, long monoNanos) {
    }

    public HostIfaceSource(Path sysfsRoot, String node, List<String> ifaces, MeterRegistry registry) {
        for (String iface : ifaces) {
            if (iface.isBlank() || iface.contains("/") || iface.equals(".") || iface.equals("..")) {
                throw new IllegalArgumentException("not a network interface name: '" + iface + "'");
            }
        }
        this.net = sysfsRoot.resolve("class").resolve("net");
        this.node = node;
        this.ifaces = List.copyOf(ifaces);
        this.files = new SysfsFiles(new ReadProblems(registry));
    }

    /** One sample per configured interface that exists, in configuration order. */
    public List<HostIfaceSample> sample(long wallMs, long monoNanos) {
        List<HostIfaceSample> samples = new ArrayList<>(ifaces.size());
        for (String iface : ifaces) {
            Path statistics = net.resolve(iface).resolve("statistics");
            if (!Files.isDirectory(statistics)) {
                previous.remove(iface);
                files.problems().note("iface-missing|" + iface, "host interface " + iface + " not found ("
                        + statistics + " does not exist): skipped until it appears");
                continue;
            }
            Map<String, Long> values = new HashMap<>();
            for (String counter : COUNTERS) {
                Long value = files.readCounter(iface, statistics.resolve(counter));
                if (value != null) {
                    values.put(counter, value);
                }
            }
            Reading current = new Reading(values, monoNanos);
            samples.add(toSample(iface, wallMs, previous.put(iface, current), current));
        }
        return samples;
    }

    private HostIfaceSample toSample(String iface, long wallMs, Reading before, Reading now) {
        long intervalNanos = before == null ? 0 : now.monoNanos - before.monoNanos;
        if (intervalNanos <= 0) {
            return new HostIfaceSample(HostIfaceSample.VERSION, node, iface, wallMs, 0, null, null, null, null,
                    Map.of());
        }
        Map<String, Long> errors = new TreeMap<>();
        for (String counter : ERROR_COUNTERS) {
            Long increment = increment(before, now, counter);
            if (increment != null && increment != 0) {
                errors.put(counter, increment);
            }
        }
        return new HostIfaceSample(HostIfaceSample.VERSION, node, iface, wallMs, Increments.toMillis(intervalNanos),
                Increments.perSecond(increment(before, now, "tx_bytes"), 1, intervalNanos),
                Increments.perSecond(increment(before, now, "rx_bytes"), 1, intervalNanos),
                Increments.perSecond(increment(before, now, "tx_packets"), 1, intervalNanos),
                Increments.perSecond(increment(before, now, "rx_packets"), 1, intervalNanos),
                errors);
    }

    private static Long increment(Reading before, Reading now, String counter) {
        Long then = before.values.get(counter);
        Long current = now.values.get(counter);
        if (then == null || current == null) {
            return null;
        }
        return Increments.increment(then, current, ALL_ONES_64);
    }
}
