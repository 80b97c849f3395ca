package io.rdmamon.scenario;

import io.rdmamon.model.CounterClass;
import io.rdmamon.model.GpuSample;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.PortSample;
import io.rdmamon.sim.ClusterTraffic;
import io.rdmamon.sim.HostTraffic;
import io.rdmamon.sim.NicDriver;
import io.rdmamon.sim.PortTraffic;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

/**
 * Turns a {@link ScenarioSpec} into the records collectors and the job source would have published: one
 * {@link PortSample} per port and one {@link HostIfaceSample} per node each second, the jobs' metadata records, and
 * the ground truth. Deterministic for a seed. Records are listed in arrival order: each sample arrives a random
 * 30 ms to {@value #MAX_DELAY_MS} ms after its {@code ts}, so a port's samples are occasionally out of order, as
 * from real collectors behind a network.
 */
public final class ScenarioRecorder {
    public static final long INTERVAL_MS = 1000;
    public static final String HOST_IFACE = "eth0";
    static final long MAX_DELAY_MS = 1500;
    private static final double HOST_BASELINE_BYTES_PER_SEC = 2.0e6;
    private static final long HOST_PACKET_BYTES = 1500;

    private ScenarioRecorder() {
    }

    /** The records of one scenario, each list in arrival order. */
    public record Recording(List<PortSample> portSamples, List<HostIfaceSample> hostSamples, List<JobRecord> jobs,
                            GroundTruth truth, List<GpuSample> gpuSamples) {
        public Recording {
            gpuSamples = gpuSamples == null ? List.of() : gpuSamples;
        }

        /** A recording without GPU telemetry (the simulated cluster has none). */
        public Recording(List<PortSample> portSamples, List<HostIfaceSample> hostSamples, List<JobRecord> jobs,
                         GroundTruth truth) {
            this(portSamples, hostSamples, jobs, truth, List.of());
        }

        /**
         * The same samples in another arrival order: each arrives {@code 0..maxLateMs} after its {@code ts} (uniform,
         * seeded), as from a busy broker; 0 gives time order. The jobs' records stay as they are.
         */
        public Recording lateUpTo(long maxLateMs, long seed) {
            SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + maxLateMs);
            return new Recording(late(portSamples, PortSample::ts, maxLateMs, random), late(hostSamples,
                    HostIfaceSample::ts, maxLateMs, random), jobs, truth, late(gpuSamples, GpuSample::ts, maxLateMs,
                    random));
        }

        private static <T> List<T> late(List<T> samples, ToLongFunction<T> ts, long maxLateMs,
                                        SplittableRandom random) {
            List<Arrival<T>> arrivals = new ArrayList<>(samples.size());
            for (T sample : samples) {
                arrivals.add(new Arrival<>(ts.applyAsLong(sample) + random.nextLong(maxLateMs + 1), sample));
            }
            return inArrivalOrder(arrivals, ts);
        }
    }

    public static Recording record(ScenarioSpec spec) {
        long seed = spec.seed();
        ClusterTraffic cluster = new ClusterTraffic();
        spec.jobs().forEach(job -> cluster.add(job.running(), job.model(seed)));
        SplittableRandom delays = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 7);
        List<Arrival<PortSample>> ports = new ArrayList<>();
        List<Arrival<HostIfaceSample>> hosts = new ArrayList<>();
        for (ClusterNode node : spec.nodes()) {
            boolean reporting = false;
            for (long ts = spec.startMs() + node.clockOffsetMs(); ts < spec.endMs(); ts += INTERVAL_MS) {
                long t = ts;
                if (spec.outages().stream().anyMatch(o -> o.covers(node.name(), t))) {
                    reporting = false;
                    continue;
                }
                // a collector's first sample after (re)start has no previous counters: its rates are unknown
                boolean first = !reporting;
                reporting = true;
                for (String device : node.devices()) {
                    PortTraffic traffic = cluster.port(node.name(), device, ts - INTERVAL_MS, ts);
                    ports.add(new Arrival<>(ts + delay(delays), portSample(node, device, ts, traffic, first)));
                }
                HostTraffic host = cluster.host(node.name(), ts - INTERVAL_MS, ts);
                hosts.add(new Arrival<>(ts + delay(delays), hostSample(node, ts, host, first, delays)));
            }
        }
        List<JobRecord> jobs = spec.jobs().stream().flatMap(j -> j.lifecycle().stream())
                .sorted(Comparator.comparingLong(JobRecord::updatedAt)).toList();
        return new Recording(inArrivalOrder(ports, PortSample::ts), inArrivalOrder(hosts, HostIfaceSample::ts), jobs,
                spec.truth());
    }

    /** What one node's collector publishes for the interval ending at {@code ts}. */
    public record NodeTick(List<PortSample> ports, HostIfaceSample host) {
    }

    /**
     * One node's records for the interval ending at {@code ts} (its clock offset already added), for load generators
     * that need the records second by second rather than a whole recording. {@code first}: the collector's first
     * pass, whose rates are unknown.
     */
    public static NodeTick tick(ClusterTraffic cluster, ClusterNode node, long ts, boolean first,
                                SplittableRandom random) {
        List<PortSample> ports = new ArrayList<>(node.devices().size());
        for (String device : node.devices()) {
            ports.add(portSample(node, device, ts, cluster.port(node.name(), device, ts - INTERVAL_MS, ts), first));
        }
        return new NodeTick(ports, hostSample(node, ts, cluster.host(node.name(), ts - INTERVAL_MS, ts), first,
                random));
    }

    record Arrival<T>(long at, T record) {
    }

    static <T> List<T> inArrivalOrder(List<Arrival<T>> arrivals, ToLongFunction<T> ts) {
        return arrivals.stream()
                .sorted(Comparator.<Arrival<T>>comparingLong(Arrival::at)
                        .thenComparingLong(a -> ts.applyAsLong(a.record)))
                .map(Arrival::record).toList();
    }

    static long delay(SplittableRandom random) {
        return 30 + Math.min(MAX_DELAY_MS - 30, Math.round(-200 * Math.log(1 - random.nextDouble())));
    }

    private static PortSample portSample(ClusterNode node, String device, long ts, PortTraffic traffic,
                                         boolean first) {
        NicDriver driver = NicDriver.ofDevice(device);
        Map<String, Long> errors = first ? Map.of() : driver.counterIncrements(traffic.errors());
        Map<String, Long> classes = new TreeMap<>();
        errors.forEach((name, n) -> CounterClass.of(name).ifPresent(c -> classes.merge(c.wireName(), n, Long::sum)));
        long rate = traffic.rateCapBytesPerSec() != null ? traffic.rateCapBytesPerSec() : node.linkBytesPerSec();
        return new PortSample(PortSample.VERSION, node.name(), device, 1, ts, INTERVAL_MS, PortSample.SOURCE_SYSFS,
                traffic.linkUp() ? "ACTIVE" : "DOWN", traffic.linkUp() ? "LinkUp" : "Polling", driver.linkLayer(),
                rate, perSec(traffic.txBytes(), first), perSec(traffic.rxBytes(), first),
                perSec(traffic.txPackets(), first), perSec(traffic.rxPackets(), first), errors, classes);
    }

    private static HostIfaceSample hostSample(ClusterNode node, long ts, HostTraffic job, boolean first,
                                              SplittableRandom random) {
        double baselineTx = HOST_BASELINE_BYTES_PER_SEC * (0.5 + random.nextDouble());
        double baselineRx = HOST_BASELINE_BYTES_PER_SEC * (0.5 + random.nextDouble());
        long tx = Math.round(baselineTx * INTERVAL_MS / 1000.0) + job.txBytes();
        long rx = Math.round(baselineRx * INTERVAL_MS / 1000.0) + job.rxBytes();
        return new HostIfaceSample(HostIfaceSample.VERSION, node.name(), HOST_IFACE, ts, INTERVAL_MS,
                perSec(tx, first), perSec(rx, first), perSec(divCeil(tx, HOST_PACKET_BYTES), first),
                perSec(divCeil(rx, HOST_PACKET_BYTES), first), Map.of());
    }

    private static Double perSec(long count, boolean unknown) {
        return unknown ? null : count * 1000.0 / INTERVAL_MS;
    }

    private static long divCeil(long a, long b) {
        return (a + b - 1) / b;
    }
}
