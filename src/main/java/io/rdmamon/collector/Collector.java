package io.rdmamon.collector;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rdmamon.collector.eadm.EadmCrossCheck;
import io.rdmamon.collector.eadm.EadmPortSamples;
import io.rdmamon.collector.eadm.EadmSupervisor;
import io.rdmamon.collector.eadm.PortAttributes;
import io.rdmamon.collector.gpu.GpuSource;
import io.rdmamon.collector.host.HostIfaceSource;
import io.rdmamon.collector.sysfs.SysfsPass;
import io.rdmamon.collector.sysfs.SysfsPortSource;
import io.rdmamon.collector.sysfs.SysfsUnavailableException;
import io.rdmamon.model.GpuSample;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.PortSample;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The node agent's sampling loop: every interval, one pass over sysfs, eadm, the host interfaces and the GPUs, then
 * one record per port, per interface and per GPU to the sink. Sysfs counters are the primary source; eadm stands in for devices whose
 * traffic sysfs cannot show, and cross-checks the others. A pass never waits for Kafka (the sink buffers), and a
 * failing pass is logged and counted without stopping the schedule.
 */
public final class Collector implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Collector.class);

    /** What one pass produced. */
    public record Pass(List<PortSample> ports, List<HostIfaceSample> hosts, List<GpuSample> gpus) {
    }

    private final String node;
    private final String portTopic;
    private final String hostTopic;
    private final String gpuTopic;
    private final SysfsPortSource sysfs;
    private final HostIfaceSource hosts;
    private final EadmSupervisor eadm;
    private final GpuSource gpus;
    private final EadmCrossCheck crossCheck;
    private final EadmPortSamples eadmSamples = new EadmPortSamples();
    private final SampleJson json = new SampleJson();
    private final SampleSink sink;
    private final Clock clock;
    private final long noDeviceWarnIntervalMs;
    private final Timer passTimer;
    private final Counter passFailures;
    private long lastNoDeviceWarnMs = Long.MIN_VALUE;
    private Set<String> previousEadmOnly = Set.of();
    private ScheduledExecutorService scheduler;

    public Collector(String node, CollectorConfig config, SysfsPortSource sysfs, HostIfaceSource hosts,
                     EadmSupervisor eadm, EadmCrossCheck crossCheck, GpuSource gpus, SampleSink sink,
                     MeterRegistry registry, Clock clock) {
        this.node = node;
        this.portTopic = config.getString(CollectorConfig.PORT_SAMPLES_TOPIC_CONFIG);
        this.hostTopic = config.getString(CollectorConfig.HOST_SAMPLES_TOPIC_CONFIG);
        this.gpuTopic = config.getString(CollectorConfig.GPU_SAMPLES_TOPIC_CONFIG);
        this.noDeviceWarnIntervalMs = config.getLong(CollectorConfig.NO_DEVICE_WARN_INTERVAL_MS_CONFIG);
        this.sysfs = sysfs;
        this.hosts = hosts;
        this.eadm = eadm;
        this.crossCheck = crossCheck;
        this.gpus = gpus;
        this.sink = sink;
        this.clock = clock;
        this.passTimer = Timer.builder("rdmamon.collector.pass.duration")
                .description("time of one sampling pass (sysfs, eadm, host interfaces, GPUs)").register(registry);
        this.passFailures = Counter.builder("rdmamon.collector.pass.failures")
                .description("sampling passes that failed with an unexpected error").register(registry);
    }

    /** Starts passes at a fixed rate; a pass that overruns delays the next one, passes never overlap. */
    public synchronized void start(long intervalMs) {
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "collector-" + node));
        scheduler.scheduleAtFixedRate(this::passAndPublish, 0, intervalMs, TimeUnit.MILLISECONDS);
    }

    void passAndPublish() {
        try {
            publish(pass());
        } catch (RuntimeException e) {
            passFailures.increment();
            log.error("sampling pass failed, next pass continues: {}", e.toString(), e);
        }
    }

    /** Called by one thread at a time (the schedule's), like {@link #pass()}: the JSON encoder is reused. */
    public void publish(Pass pass) {
        for (PortSample s : pass.ports()) {
            sink.publish(portTopic, s.key(), s.ts(), json.portSample(s));
        }
        for (HostIfaceSample s : pass.hosts()) {
            sink.publish(hostTopic, s.key(), s.ts(), json.hostSample(s));
        }
        for (GpuSample s : pass.gpus()) {
            sink.publish(gpuTopic, s.key(), s.ts(), json.gpuSample(s));
        }
    }

    /** Reads every source once. */
    public Pass pass() {
        return passTimer.record(() -> {
            long wallMs = clock.millis();
            long monoNanos = System.nanoTime();
            SysfsPass fromSysfs = readSysfs(wallMs, monoNanos);
            List<PortSample> ports = withEadm(fromSysfs, wallMs);
            if (ports.isEmpty()) {
                warnNoDevice(wallMs);
            }
            return new Pass(ports, hosts.sample(wallMs, monoNanos), gpus == null ? List.of() : gpus.sample(wallMs));
        });
    }

    private SysfsPass readSysfs(long wallMs, long monoNanos) {
        try {
            return sysfs.sample(wallMs, monoNanos);
        } catch (SysfsUnavailableException e) {
            if (shouldWarn(wallMs)) {
                log.warn("{} (is the host's /sys mounted? set collector.sysfs.root)", e.getMessage());
            }
            return new SysfsPass(List.of(), Set.of(), Set.of(), List.of());
        }
    }

    /**
     * eRDMA devices get an eadm each. A device whose bytes sysfs shows keeps its sysfs sample and is cross-checked;
     * one whose bytes only eadm shows is published from eadm, decorated with what sysfs knows (state, rate, errors).
     */
    private List<PortSample> withEadm(SysfsPass pass, long wallMs) {
        if (eadm == null) {
            return pass.samples();
        }
        Set<String> erdma = new TreeSet<>();
        pass.devices().stream().filter(Collector::isErdma).forEach(erdma::add);
        eadm.supervise(erdma);
        Set<String> supervisedDevices = eadm.devices();
        List<PortSample> out = new ArrayList<>(pass.samples().size());
        Map<String, double[]> sysfsTotals = new HashMap<>();
        Set<String> eadmOnly = new TreeSet<>();
        for (PortSample s : pass.samples()) {
            boolean supervised = supervisedDevices.contains(s.device());
            if (supervised && !pass.devicesWithTraffic().contains(s.device())) {
                var rate = eadm.latest(s.device());
                if (rate.isPresent() && s.port() == EadmPortSamples.PORT) {
                    PortSample fromEadm = eadmSamples.toPortSample(node, rate.get(), wallMs, new PortAttributes(
                            s.state(), s.physState(), s.linkLayer(), s.rateBytesPerSec()));
                    out.add(withErrors(fromEadm, s));
                    eadmOnly.add(s.device());
                    continue;
                }
            } else if (supervised) {
                double[] totals = sysfsTotals.computeIfAbsent(s.device(), d -> new double[2]);
                totals[0] = addOrNaN(totals[0], s.txBytesPerSec());
                totals[1] = addOrNaN(totals[1], s.rxBytesPerSec());
            }
            out.add(s);
        }
        sysfsTotals.forEach((device, totals) -> eadm.latest(device).ifPresent(rate ->
                crossCheck.check(device, finiteOrNull(totals[0]), finiteOrNull(totals[1]), rate)));
        // devices only eadm can see (listed in eadm.devices, absent from sysfs)
        for (String device : supervisedDevices) {
            if (!pass.devices().contains(device)) {
                eadm.latest(device).ifPresent(rate -> {
                    out.add(eadmSamples.toPortSample(node, rate, wallMs, PortAttributes.UNKNOWN));
                    eadmOnly.add(device);
                });
            }
        }
        previousEadmOnly.stream().filter(d -> !eadmOnly.contains(d)).forEach(eadmSamples::forget);
        previousEadmOnly = eadmOnly;
        return out;
    }

    /** The uuids of the GPUs this collector reads (in pod mode: the pod's own); empty without GPU source. */
    public List<String> gpuUuids() {
        return gpus == null ? List.of() : gpus.uuids();
    }

    static boolean isErdma(String device) {
        return device.startsWith("erdma");
    }

    private static PortSample withErrors(PortSample fromEadm, PortSample fromSysfs) {
        return new PortSample(fromEadm.v(), fromEadm.node(), fromEadm.device(), fromEadm.port(), fromEadm.ts(),
                fromEadm.intervalMs(), fromEadm.source(), fromEadm.state(), fromEadm.physState(), fromEadm.linkLayer(),
                fromEadm.rateBytesPerSec(), fromEadm.txBytesPerSec(), fromEadm.rxBytesPerSec(),
                fromEadm.txPacketsPerSec(), fromEadm.rxPacketsPerSec(), fromSysfs.errors(), fromSysfs.errorClasses());
    }

    private static double addOrNaN(double sum, Double value) {
        return value == null ? Double.NaN : sum + value;
    }

    private static Double finiteOrNull(double value) {
        return Double.isFinite(value) ? value : null;
    }

    private void warnNoDevice(long wallMs) {
        if (shouldWarn(wallMs)) {
            log.warn("no RDMA device found under the sysfs root/class/infiniband (include/exclude filters applied); "
                    + "still sampling, this warning repeats at most every {} s", noDeviceWarnIntervalMs / 1000);
        }
    }

    private boolean shouldWarn(long wallMs) {
        if (lastNoDeviceWarnMs == Long.MIN_VALUE || wallMs - lastNoDeviceWarnMs >= noDeviceWarnIntervalMs) {
            lastNoDeviceWarnMs = wallMs;
            return true;
        }
        return false;
    }

    @Override
    public synchronized void close() {
        if (scheduler != null) {
            scheduler.shutdown();
            try {
                scheduler.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (eadm != null) {
            eadm.close();
        }
        if (gpus != null) {
            gpus.close();
        }
        sink.close();
    }
}
