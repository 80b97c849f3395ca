package io.rdmamon.collector;

import io.rdmamon.collector.eadm.EadmConfig;
import io.rdmamon.collector.eadm.EadmCrossCheck;
import io.rdmamon.collector.eadm.EadmSupervisor;
import io.rdmamon.collector.gpu.GpuConfig;
import io.rdmamon.collector.gpu.GpuSource;
import io.rdmamon.collector.host.HostIfaceSource;
import io.rdmamon.collector.podresources.PodDeviceReporter;
import io.rdmamon.collector.podresources.PodResourcesConfig;
import io.rdmamon.collector.publish.KafkaSampleSink;
import io.rdmamon.collector.publish.PublishConfig;
import io.rdmamon.collector.sysfs.SysfsPortSource;
import io.rdmamon.config.ConfigOptions;
import io.rdmamon.config.Durations;
import io.rdmamon.metrics.MetricsEndpoint;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code rdmamon collector}: the node agent. */
@Command(name = "collector", mixinStandardHelpOptions = true,
        description = {"Samples the node's RDMA ports (sysfs counters, eadm), host interfaces and GPUs (nvidia-smi) "
                + "every interval and publishes one record per port, interface and GPU to Kafka.",
                "",
                "  rdmamon collector --config /etc/rdmamon/collector.properties",
                "  rdmamon collector --once --sysfs /sys            # no Kafka: print what rdmamon sees",
                "  rdmamon collector --stdout --interval 1s         # no Kafka: print every record, every interval",
                "",
                "Every configuration key (rdmamon config show collector) can also be set by environment: "
                        + "collector.interval.ms as RDMAMON_COLLECTOR_INTERVAL_MS, kafka.bootstrap.servers as "
                        + "RDMAMON_KAFKA_BOOTSTRAP_SERVERS."})
public final class CollectorCommand implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(CollectorCommand.class);

    @Spec
    CommandSpec spec;

    @Mixin
    ConfigOptions options;

    @Option(names = "--once", description = "No Kafka: read twice, one interval apart, and print the second pass's "
            + "records as JSON lines on stdout.")
    boolean once;

    @Option(names = "--stdout", description = "No Kafka: run as in production, but print every record (ports, "
            + "interfaces, GPUs, pod devices) as a JSON line on stdout instead of publishing it.")
    boolean stdout;

    @Option(names = "--sysfs", paramLabel = "DIR", description = "sysfs root (collector.sysfs.root, default /sys).")
    Path sysfsRoot;

    @Option(names = "--interval", paramLabel = "DURATION", converter = Durations.Converter.class,
            description = "Sampling interval, e.g. 1s or 250ms, at least 100ms (collector.interval.ms, default 1s).")
    Duration interval;

    @Option(names = "--node", description = "Node name (collector.node; default NODE_NAME, else the host name).")
    String node;

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT,...",
            description = "Kafka brokers (kafka.bootstrap.servers).")
    String bootstrapServers;

    @Option(names = "--host-interfaces", paramLabel = "IF,...",
            description = "Host network interfaces to sample (collector.host.interfaces), e.g. eth0; auto: the "
                    + "default route's.")
    String hostInterfaces;

    @Option(names = "--metrics-port", description = "Prometheus /metrics port (metrics.port, default 9464; -1 off).")
    Integer metricsPort;

    @Override
    public Integer call() throws Exception {
        Map<String, Object> flags = new HashMap<>();
        flags.put(CollectorConfig.SYSFS_ROOT_CONFIG, sysfsRoot == null ? null : sysfsRoot.toString());
        flags.put(CollectorConfig.INTERVAL_MS_CONFIG, interval == null ? null : interval.toMillis());
        flags.put(CollectorConfig.NODE_CONFIG, node);
        flags.put(CollectorConfig.HOST_INTERFACES_CONFIG, hostInterfaces);
        flags.put(CollectorConfig.METRICS_PORT_CONFIG, metricsPort);
        flags.put(PublishConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        Map<String, String> env = System.getenv();
        CollectorConfig config = CollectorConfig.load(options.file, env, options.withNamedFlags(flags));
        Path root = config.sysfsRoot();
        if (!Files.isDirectory(root)) {
            throw new ConfigException(CollectorConfig.SYSFS_ROOT_CONFIG, root.toString(), "no such directory");
        }
        if (once) {
            return runOnce(config, env, spec.commandLine().getOut());
        }
        return runForever(config, env);
    }

    private int runOnce(CollectorConfig config, Map<String, String> env, PrintWriter out) throws Exception {
        try (MetricsEndpoint metrics = new MetricsEndpoint()) {
            // the records are printed from the second pass below; the sink is never used
            Collector collector = build(config, env, metrics, new StdoutSink(System.out));
            try {
                collector.pass();
                Thread.sleep(config.intervalMs());
                Collector.Pass second = collector.pass();
                // the bytes the collector would publish
                SampleJson json = new SampleJson();
                second.ports().forEach(s -> out.println(new String(json.portSample(s), StandardCharsets.UTF_8)));
                second.hosts().forEach(s -> out.println(new String(json.hostSample(s), StandardCharsets.UTF_8)));
                second.gpus().forEach(s -> out.println(new String(json.gpuSample(s), StandardCharsets.UTF_8)));
                out.flush();
            } finally {
                collector.close();
            }
        }
        return 0;
    }

    private int runForever(CollectorConfig config, Map<String, String> env) throws Exception {
        MetricsEndpoint metrics = new MetricsEndpoint()
                .serve(config.getString(CollectorConfig.METRICS_BIND_CONFIG), config.getInt(CollectorConfig.METRICS_PORT_CONFIG));
        SampleSink sink;
        if (stdout) {
            sink = new StdoutSink(System.out);
        } else {
            KafkaSampleSink kafka = new KafkaSampleSink(new PublishConfig(config.originals()), metrics.registry());
            metrics.readiness(kafka::notReady);
            sink = kafka;
        }
        Collector collector = build(config, env, metrics, sink);
        // without collector.node and NODE_NAME the name is a host-name lookup: once is enough
        String nodeName = config.node(env);
        PodResourcesConfig podResources = new PodResourcesConfig(config.originals());
        PodDeviceReporter podDevices = config.podMode()
                ? PodDeviceReporter.startInPod(podResources, nodeName, env.get("POD_NAMESPACE"), env.get("POD_NAME"),
                config.sysfsRoot(), config.devicesInclude(), config.devicesExclude(), collector::gpuUuids, sink,
                metrics.registry())
                : PodDeviceReporter.startIfAvailable(podResources, nodeName, config.sysfsRoot(), sink,
                metrics.registry());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            log.info("stopping: flushing buffered samples");
            if (podDevices != null) {
                podDevices.close();
            }
            collector.close();
            metrics.close();
            stopped.countDown();
        }, "collector-shutdown"));
        if (config.podMode()) {
            log.info("collector in pod {} (node {}) sampling {} and {} every {} ms", nodeName, env.get("NODE_NAME"),
                    config.sysfsRoot(), config.hostInterfaces(), config.intervalMs());
        } else {
            log.info("collector on node {} sampling {} every {} ms", nodeName, config.sysfsRoot(), config.intervalMs());
            List<String> hostInterfaces = config.hostInterfaces();
            if (config.getList(CollectorConfig.HOST_INTERFACES_CONFIG).equals(List.of(CollectorConfig.HOST_INTERFACES_AUTO))) {
                log.info(hostInterfaces.isEmpty()
                        ? "host interfaces: auto, but {} holds no default route: no host samples (name them in "
                          + CollectorConfig.HOST_INTERFACES_CONFIG + ")"
                        : "host interfaces: auto, the default route's {}", hostInterfaces.isEmpty()
                        ? config.getString(CollectorConfig.HOST_ROUTE_FILE_CONFIG) : hostInterfaces);
            }
        }
        collector.start(config.intervalMs());
        stopped.await();
        return 0;
    }

    /** Wires a collector from its configuration (also used by the demo and the benchmark). */
    public static Collector build(CollectorConfig config, Map<String, String> env, MetricsEndpoint metrics,
                                  SampleSink sink) {
        String nodeName = config.node(env);
        var registry = metrics.registry();
        EadmConfig eadmConfig = new EadmConfig(config.originals());
        EadmSupervisor eadm = eadmConfig.enabled() ? new EadmSupervisor(eadmConfig, registry) : null;
        GpuConfig gpuConfig = new GpuConfig(config.originals());
        GpuSource gpus = gpuConfig.enabled() ? new GpuSource(gpuConfig, nodeName, config.intervalMs(),
                gpuConfig.countProcesses(GpuSource.seesHostProcesses()), registry) : null;
        return new Collector(nodeName, config,
                new SysfsPortSource(config.sysfsRoot(), nodeName, config.devicesInclude(), config.devicesExclude(), registry,
                        config.keepSysfsFilesOpen(), config.getLong(CollectorConfig.SYSFS_RESCAN_MS_CONFIG)),
                new HostIfaceSource(config.sysfsRoot(), nodeName, config.hostInterfaces(), registry),
                eadm, new EadmCrossCheck(eadmConfig, registry), gpus, sink, registry, Clock.systemUTC());
    }
}
