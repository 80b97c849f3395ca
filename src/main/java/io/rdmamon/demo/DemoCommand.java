package io.rdmamon.demo;

import io.rdmamon.collector.Collector;
import io.rdmamon.collector.CollectorCommand;
import io.rdmamon.collector.CollectorConfig;
import io.rdmamon.collector.eadm.EadmSimScript;
import io.rdmamon.collector.publish.KafkaSampleSink;
import io.rdmamon.collector.publish.PublishConfig;
import io.rdmamon.config.Durations;
import io.rdmamon.influx.InfluxSettings;
import io.rdmamon.influx.InfluxSetup;
import io.rdmamon.metrics.MetricsEndpoint;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.Json;
import io.rdmamon.model.Topics;
import io.rdmamon.sim.SysfsTreeWriter;
import io.rdmamon.sink.InfluxSink;
import io.rdmamon.sink.SinkConfig;
import io.rdmamon.streams.StreamsApp;
import io.rdmamon.streams.StreamsAppConfig;
import io.rdmamon.support.EmbeddedKafkaBroker;
import io.rdmamon.support.FileTrees;
import io.rdmamon.support.KafkaOffsets;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.influxdb.InfluxDB;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@code rdmamon demo}: the whole pipeline in one process on a simulated cluster — an in-process KRaft broker, eight
 * simulated GPU nodes whose sysfs trees are read by eight real collectors (and a simulated eadm on the eRDMA nodes),
 * four ACS serverless GPU pods each read by a real collector in pod mode, the
 * job records, the stream app, the InfluxDB sink when an InfluxDB answers, and a live terminal view read back from
 * the topics.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Runs rdmamon end to end on a simulated GPU cluster with an in-process Kafka broker and shows "
                + "live per-port traffic, per-job bandwidth and alerts in the terminal. Needs no other service.",
                "",
                "  rdmamon demo                    # until Ctrl-C",
                "  rdmamon demo --duration 3m      # stop by itself"})
public final class DemoCommand implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(DemoCommand.class);

    @Spec
    CommandSpec spec;

    @Option(names = "--duration", converter = Durations.Converter.class, paramLabel = "DURATION",
            description = "Stop after this long (e.g. 3m); default: run until Ctrl-C.")
    Duration duration;

    @Option(names = "--work-dir", paramLabel = "DIR",
            description = "Where the broker's log, the sysfs trees and state go (default: a new temporary folder, "
                    + "on tmpfs when /dev/shm exists, removed at exit).")
    Path workDir;

    @Option(names = "--degrade-at", converter = Durations.Converter.class, defaultValue = "90s",
            description = "When gpu-node-2/mlx5_0 starts retransmitting and dropping (default ${DEFAULT-VALUE}).")
    Duration degradeAt;

    @Option(names = "--hang-at", converter = Durations.Converter.class, defaultValue = "150s",
            description = "When the bert-finetune job's gradient sync hangs (default ${DEFAULT-VALUE}).")
    Duration hangAt;

    @Option(names = "--influx-url", defaultValue = "http://127.0.0.1:8086",
            description = "InfluxDB (1.x API) to fill through the real sink when it answers; database rdmamon is "
                    + "created by 'influx init' (default ${DEFAULT-VALUE}; 'none' turns the sink off).")
    String influxUrl;

    @Option(names = "--plain", description = "Print the view as plain text every second instead of redrawing the "
            + "screen (default when stdout is not a terminal).")
    boolean plain;

    /** The live view's first line (package-private: the README's demo output is compared with it). */
    static String title(String bootstrap, Duration degradeAt, Duration hangAt) {
        return String.format("rdmamon demo: 8 simulated GPU nodes (4 RoCE mlx5, 4 eRDMA) and 4 ACS pods "
                        + "(%s/%s: P16EN, sockets intended; %s/%s: GU8TF, RDMA), broker %s. gpu-node-2/mlx5_0 "
                        + "degrades at +%ds, %s hangs at +%ds, %s trains over TCP. Ctrl-C stops.",
                SimulatedCluster.ACS_NAMESPACE, SimulatedCluster.ACS_SOCKET_JOB, SimulatedCluster.ACS_NAMESPACE,
                SimulatedCluster.ACS_RDMA_JOB, bootstrap, degradeAt.toSeconds(), SimulatedCluster.BERT_JOB,
                hangAt.toSeconds(), SimulatedCluster.FALLBACK_JOB);
    }

    @Override
    public Integer call() throws Exception {
        boolean temporary = workDir == null;
        Path dir = temporary ? Files.createTempDirectory(SysfsTreeWriter.preferredTempRoot(), "rdmamon-demo-") : workDir;
        List<AutoCloseable> open = new ArrayList<>();
        CountDownLatch stop = new CountDownLatch(1);
        Thread hook = new Thread(stop::countDown, "demo-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            log.info("demo: working in {}; starting the in-process Kafka broker", dir);
            EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dir.resolve("kafka"), 0);
            open.add(broker);
            String bootstrap = broker.bootstrapServers();
            createTopics(bootstrap);

            long start = System.currentTimeMillis();
            SimulatedCluster cluster = new SimulatedCluster(dir.resolve("nodes"), start, degradeAt.toMillis(),
                    hangAt.toMillis());
            ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "demo-cluster"));
            open.add(() -> {
                // a tick still writing the node trees would race their deletion (the demo's, or a test's folder)
                ticker.shutdownNow();
                ticker.awaitTermination(10, TimeUnit.SECONDS);
            });
            ticker.scheduleAtFixedRate(() -> cluster.tick(System.currentTimeMillis()), 100, 100, TimeUnit.MILLISECONDS);
            publishJobs(bootstrap, cluster.jobs());

            StreamsApp streams = new StreamsApp(new StreamsAppConfig(Map.of(
                    StreamsAppConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    StreamsAppConfig.STATE_DIR_CONFIG, dir.resolve("streams-state").toString(),
                    StreamsAppConfig.METRICS_PORT_CONFIG, "-1",
                    // one instance: nowhere to keep a standby, and Kafka Streams warns of it at every rebalance
                    StreamsAppConfig.STANDBY_REPLICAS_CONFIG, "0",
                    StreamsAppConfig.NIC_EXPECTED_INSTANCE_TYPES_CONFIG, SimulatedCluster.EXPECTED_NIC_BY_INSTANCE_TYPE,
                    StreamsAppConfig.NIC_EXPECTED_DEVICE_TYPES_CONFIG, SimulatedCluster.EXPECTED_NIC_BY_DEVICE_TYPE)),
                    new MetricsEndpoint().registry());
            open.add(0, streams);
            streams.start();
            startSinkIfInfluxAnswers(bootstrap, open);

            Path eadm = EadmSimScript.install(dir.resolve("bin"));
            for (SimulatedCluster.Node node : cluster.nodes()) {
                open.add(0, startCollector(node, bootstrap, eadm, dir));
            }

            PrintWriter out = spec.commandLine().getOut();
            LiveView view = new LiveView(bootstrap, out, !plain && System.console() != null,
                    title(bootstrap, degradeAt, hangAt));
            open.add(0, view);
            Thread viewThread = new Thread(view, "demo-view");
            viewThread.start();

            if (duration == null) {
                stop.await();
            } else {
                stop.await(duration.toMillis(), TimeUnit.MILLISECONDS);
            }
            log.info("demo: stopping");
            return 0;
        } finally {
            for (AutoCloseable c : open) {
                try {
                    c.close();
                } catch (Exception e) {
                    log.warn("demo: closing {} failed: {}", c, e.toString());
                }
            }
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException alreadyShuttingDown) {
                // Ctrl-C: the hook is what got us here
            }
            if (temporary) {
                FileTrees.deleteQuietly(dir);
            }
        }
    }

    private static Collector startCollector(SimulatedCluster.Node node, String bootstrap, Path eadmScript, Path dir) {
        Map<String, Object> settings = new HashMap<>();
        Map<String, String> env = Map.of();
        if (node.pod() == null) {
            settings.put(CollectorConfig.NODE_CONFIG, node.name());
            settings.put(CollectorConfig.HOST_INTERFACES_CONFIG, SimulatedCluster.HOST_IFACE);
        } else {
            // as the sidecar of deploy/acs runs: its name from the downward API, eth0 and hpn0 sampled by default
            settings.put(CollectorConfig.MODE_CONFIG, CollectorConfig.MODE_POD);
            env = Map.of("POD_NAMESPACE", SimulatedCluster.ACS_NAMESPACE, "POD_NAME", node.pod(),
                    "NODE_NAME", SimulatedCluster.ACS_VIRTUAL_NODE);
        }
        settings.put(CollectorConfig.SYSFS_ROOT_CONFIG, node.sysfsRoot().toString());
        settings.put(CollectorConfig.METRICS_PORT_CONFIG, -1);
        settings.put("eadm.enabled", Boolean.toString(node.erdma()));
        settings.put("eadm.command", EadmSimScript.command(eadmScript, node.sysfsRoot()));
        settings.put(PublishConfig.SPILL_PATH_CONFIG, dir.resolve("spill").resolve(node.name()).toString());
        settings.put(PublishConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        settings.put("kafka.client.id", "rdmamon-collector-" + node.name());
        CollectorConfig config = new CollectorConfig(settings);
        MetricsEndpoint metrics = new MetricsEndpoint();
        Collector collector = CollectorCommand.build(config, env, metrics,
                new KafkaSampleSink(new PublishConfig(config.originals()), metrics.registry()));
        collector.start(config.intervalMs());
        return collector;
    }

    /** The sink runs in the demo when an InfluxDB answers: the dashboards in dashboards/ then show the demo live. */
    private void startSinkIfInfluxAnswers(String bootstrap, List<AutoCloseable> open) {
        if ("none".equals(influxUrl)) {
            return;
        }
        SinkConfig config = new SinkConfig(Map.of(InfluxSettings.URL_CONFIG, influxUrl,
                "kafka.bootstrap.servers", bootstrap, "metrics.port", "-1"));
        try (InfluxDB db = config.influx().connect()) {
            if (!db.ping().isGood()) {
                throw new IllegalStateException("ping failed");
            }
            new InfluxSetup(db, config.influx()).apply();
        } catch (RuntimeException e) {
            log.info("demo: no InfluxDB at {} ({}); the sink is off. Start one (apt-get install influxdb) to see "
                    + "the Grafana dashboards fill.", influxUrl, e.getMessage());
            return;
        }
        InfluxSink sink = new InfluxSink(config, new MetricsEndpoint().registry());
        Thread thread = new Thread(sink, "demo-sink");
        thread.start();
        open.add(0, sink);
        log.info("demo: writing to InfluxDB at {} (database {})", influxUrl, config.influx().database());
    }

    private static void createTopics(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            List<NewTopic> topics = new ArrayList<>();
            for (String t : List.of(Topics.PORT_SAMPLES, Topics.HOST_SAMPLES, Topics.JOB_BANDWIDTH, Topics.LINK_HEALTH,
                    Topics.ALERTS, Topics.DEAD_LETTER)) {
                topics.add(new NewTopic(t, 4, (short) 1));
            }
            for (String table : List.of(Topics.JOBS, Topics.NODES)) {
                topics.add(new NewTopic(table, 4, (short) 1).configs(Map.of("cleanup.policy", "compact")));
            }
            KafkaOffsets.createTopics(admin, topics);
        }
    }

    private static void publishJobs(String bootstrap, List<JobRecord> jobs) throws Exception {
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap,
                "acks", "all"), new StringSerializer(), new ByteArraySerializer())) {
            for (JobRecord job : jobs) {
                producer.send(new ProducerRecord<>(Topics.JOBS, null, job.updatedAt(), job.uid(), Json.toBytes(job))).get();
            }
        }
    }

}
