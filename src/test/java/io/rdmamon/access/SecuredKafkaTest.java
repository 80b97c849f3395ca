package io.rdmamon.access;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.alerts.AlertDelivery;
import io.rdmamon.alerts.AlertsConfig;
import io.rdmamon.cli.Main;
import io.rdmamon.collector.publish.KafkaSampleSink;
import io.rdmamon.collector.publish.PublishConfig;
import io.rdmamon.detect.DetectorConfig;
import io.rdmamon.influx.InfluxSettings;
import io.rdmamon.influx.InfluxSetup;
import io.rdmamon.jobs.k8s.JobsWatchConfig;
import io.rdmamon.jobs.k8s.JobsWatcher;
import io.rdmamon.metrics.MetricsEndpoint;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.Json;
import io.rdmamon.model.Topics;
import io.rdmamon.sink.InfluxSink;
import io.rdmamon.sink.SinkConfig;
import io.rdmamon.streams.StreamsApp;
import io.rdmamon.streams.StreamsAppConfig;
import io.rdmamon.testing.LocalInfluxd;
import io.rdmamon.testing.SecuredKafka;
import io.rdmamon.testing.TrainingTraffic;
import io.rdmamon.testing.TrainingTraffic.Event;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every role on a locked-down Kafka (SASL/SCRAM over TLS, an authorizer that denies what no ACL allows), each under its
 * own principal with exactly the ACLs of {@link RoleAcls} (the table of docs/deploy.md): the whole pipeline works; a
 * role missing one ACL says which operation on which resource it was refused; a role with a wrong password stops
 * with one line naming the principal (the collector, which keeps its buffer, reports not-ready instead). One broker
 * for the class.
 */
@EnableKubernetesMockClient(crud = true)
class SecuredKafkaTest {
    /** Users with one ACL fewer than their role needs. */
    private static final String COLLECTOR_LACKING = "collector-lacking";
    private static final String STREAMS_LACKING = "streams-lacking";
    private static final String SINK_LACKING = "sink-lacking";

    @TempDir
    static Path dir;
    static SecuredKafka kafka;

    KubernetesClient client;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<AutoCloseable> open = new ArrayList<>();
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

    @BeforeAll
    static void start() throws Exception {
        List<String> users = new ArrayList<>(RoleAcls.defaults().keySet());
        users.addAll(List.of(COLLECTOR_LACKING, STREAMS_LACKING, SINK_LACKING));
        kafka = SecuredKafka.start(dir, users);
        kafka.createTopics(Topics.PORT_SAMPLES, Topics.HOST_SAMPLES, Topics.GPU_SAMPLES, Topics.POD_DEVICES, Topics.JOBS,
                Topics.NODES,
                Topics.JOB_BANDWIDTH, Topics.LINK_HEALTH, Topics.ALERTS, Topics.DEAD_LETTER);
        for (var role : RoleAcls.defaults().entrySet()) {
            kafka.grant(role.getKey(), role.getValue());
        }
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @BeforeEach
    void captureLogs() {
        logs.start();
        root.addAppender(logs);
    }

    @AfterEach
    void closeAll() throws Exception {
        Collections.reverse(open);
        for (AutoCloseable c : open) {
            c.close();
        }
        root.detachAppender(logs);
    }

    @Test
    void everyRoleWorksEndToEndWithExactlyTheDocumentedAcls() throws Exception {
        long t0 = (System.currentTimeMillis() / 10_000) * 10_000 - 300_000;
        long linkDown = t0 + 30_000;
        TrainingTraffic sim = new TrainingTraffic();
        TrainingTraffic.Job job = sim.job("uid-secured", List.of("n1", "n2"), List.of("mlx5_0"))
                .trains(t0 + 5_000, Long.MAX_VALUE);
        sim.tweak(s -> s.node().equals("n2") && s.ts() >= linkDown && s.ts() < linkDown + 5_000
                ? TrainingTraffic.down(s) : s);
        List<Event> events = sim.run(t0, t0 + 60_000);

        // jobs publish, the command, as User:jobs-publish
        Path jobLines = dir.resolve("jobs.jsonl");
        Files.writeString(jobLines, new String(Json.toBytes(job.record(JobRecord.RUNNING, t0)),
                StandardCharsets.UTF_8) + "\n");
        assertThat(run(kafka.roleSettings("kafka.", "jobs-publish", SecuredKafka.password("jobs-publish")), "jobs",
                "publish", jobLines.toString()).code).isZero();

        // the stream app (exactly-once) as User:streams
        Map<String, Object> streams = streamsSettings("streams", SecuredKafka.password("streams"), "rdmamon-streams");
        StreamsApp app = new StreamsApp(new StreamsAppConfig(streams), registry).start();
        open.add(app);

        // alerts to a webhook as User:alerts; the sink to InfluxDB as User:sink
        List<String> webhook = Collections.synchronizedList(new ArrayList<>());
        AlertsConfig alertsConfig = new AlertsConfig(alertsSettings("alerts", SecuredKafka.password("alerts"),
                webhook(webhook)));
        open.add(AlertDelivery.start(alertsConfig, registry));
        SinkConfig sinkConfig = new SinkConfig(sinkSettings("sink", SecuredKafka.password("sink"),
                "secured_" + UUID.randomUUID().toString().substring(0, 8)));
        new InfluxSetup(LocalInfluxd.client(LocalInfluxd.shared()), sinkConfig.influx()).apply();
        InfluxSink sink = new InfluxSink(sinkConfig, registry);
        Thread sinkThread = new Thread(sink, "secured-sink");
        sinkThread.start();
        open.add(sink);

        // jobs watch as User:jobs-watch: reads its topics back (the Kubernetes client's start takes seconds: meanwhile
        // the traffic goes), then publishes the job of a new pod
        CompletableFuture<JobsWatcher> watching = CompletableFuture.supplyAsync(() -> {
            try {
                return JobsWatcher.start(new JobsWatchConfig(jobsWatchSettings("jobs-watch",
                        SecuredKafka.password("jobs-watch"))), client, registry);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        });

        // the collector's publisher as User:collector: second by second until a sample comes out joined with the
        // job (its assignment travels through a repartition topic), then the rest. On a loaded machine the app's
        // start takes longer: each second waits up to 2 s for the join, and the feeding stops before the link goes
        // down, so that its alert names the job whatever the load
        KafkaSampleSink collector = collector("collector", SecuredKafka.password("collector"));
        long fed = t0;
        while (fed < linkDown - 5_000 && !joined()) {
            publish(collector, events, fed, fed + 1_000);
            fed += 1_000;
            for (int i = 0; i < 20 && !joined(); i++) {
                Thread.sleep(100);
            }
        }
        publish(collector, events, fed, Long.MAX_VALUE);

        open.add(watching.get(60, TimeUnit.SECONDS));
        client.pods().inNamespace("ops").resource(new PodBuilder().withNewMetadata().withNamespace("ops")
                .withName("secured-pod").withLabels(Map.of("rdmamon.io/job", "secured-job")).endMetadata()
                .withNewSpec().withNodeName("n9").endSpec().build())
                .create();

        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertThat(webhook)
                .anyMatch(body -> body.contains("LINK_DOWN") && body.contains("uid-secured")));
        await().atMost(Duration.ofSeconds(60)).until(() -> LocalInfluxd.count(LocalInfluxd.client(
                LocalInfluxd.shared()), sinkConfig.influx().database(), sinkConfig.influx().retentionPolicy(),
                "alert", "id") > 0);
        await().atMost(Duration.ofSeconds(30)).until(() -> readAll(Topics.JOBS).stream()
                .anyMatch(r -> r.value().contains("secured-job")));
        assertThat(app.state()).isEqualTo(KafkaStreams.State.RUNNING);
        assertThat(collector.notReady()).isEmpty();
        assertThat(messages()).noneMatch(m -> m.contains("not authorized") || m.contains("authentication failed"));
    }

    /** Whether a link-health record names the test's job: its assignment reached the port side. */
    private static boolean joined() {
        return readAll(Topics.LINK_HEALTH).stream().anyMatch(r -> r.value().contains("uid-secured"));
    }

    @Test
    void aCollectorRefusedWriteSaysSoKeepsItsRecordsAndDeliversThemOnceGranted() throws Exception {
        kafka.grant(COLLECTOR_LACKING, without(RoleAcls.defaults().get("collector"), Topics.HOST_SAMPLES));
        KafkaSampleSink collector = collector(COLLECTOR_LACKING, SecuredKafka.password(COLLECTOR_LACKING));
        String key = "lacking-" + UUID.randomUUID();
        collector.publish(Topics.HOST_SAMPLES, key, System.currentTimeMillis(), "{}".getBytes(StandardCharsets.UTF_8));

        String line = "not authorized: WRITE on topic " + Topics.HOST_SAMPLES + " for principal User:"
                + COLLECTOR_LACKING;
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(messages()).anyMatch(m ->
                m.startsWith(line)));
        assertThat(collector.notReady()).hasValueSatisfying(reason -> assertThat(reason).isEqualTo(line));
        assertThat(registry.get("rdmamon.collector.kafka.refused").gauge().value()).isEqualTo(1.0);
        assertThat(collector.bufferedRecords()).isEqualTo(1);

        kafka.grant(COLLECTOR_LACKING, List.of(RoleAcl.topic(org.apache.kafka.common.acl.AclOperation.WRITE,
                Topics.HOST_SAMPLES)));
        await().atMost(Duration.ofSeconds(30)).until(() -> readAll(Topics.HOST_SAMPLES).stream()
                .anyMatch(r -> key.equals(r.key())));
        await().atMost(Duration.ofSeconds(5)).until(() -> collector.notReady().isEmpty());
        assertThat(registry.get("rdmamon.collector.kafka.refused").gauge().value()).isZero();
    }

    @Test
    void aStreamAppWithoutItsTransactionalIdAclSaysSoAndStops() throws Exception {
        String applicationId = "rdmamon-streams-lacking";
        List<RoleAcl> needed = RoleAcls.streams(applicationId, List.of(Topics.PORT_SAMPLES, Topics.HOST_SAMPLES,
                Topics.GPU_SAMPLES, Topics.JOBS, Topics.NODES), List.of(Topics.JOB_BANDWIDTH, Topics.LINK_HEALTH, Topics.ALERTS, Topics.DEAD_LETTER));
        kafka.grant(STREAMS_LACKING, needed.stream().filter(acl -> acl.resourceType()
                != org.apache.kafka.common.resource.ResourceType.TRANSACTIONAL_ID).toList());
        StreamsApp app = new StreamsApp(new StreamsAppConfig(streamsSettings(STREAMS_LACKING,
                SecuredKafka.password(STREAMS_LACKING), applicationId)), registry).start();
        open.add(app);

        await().atMost(Duration.ofSeconds(60)).until(() -> app.state() == KafkaStreams.State.ERROR);
        String line = "not authorized: WRITE on transactional-ids prefixed " + applicationId + " for principal User:"
                + STREAMS_LACKING;
        assertThat(app.refused()).hasValueSatisfying(refused -> assertThat(refused).startsWith(line));
        assertThat(messages()).anyMatch(m -> m.startsWith(line));
    }

    @Test
    void aSinkWithoutItsGroupAclExitsNamingIt() throws Exception {
        kafka.grant(SINK_LACKING, RoleAcls.defaults().get("sink").stream().filter(acl -> acl.resourceType()
                != org.apache.kafka.common.resource.ResourceType.GROUP).toList());
        Outcome outcome = run(sinkSettings(SINK_LACKING, SecuredKafka.password(SINK_LACKING), "lacking"), "sink");
        assertThat(outcome.code).isEqualTo(AccessRefusedException.EXIT_CODE);
        assertThat(outcome.err).contains("rdmamon: not authorized: READ on group rdmamon-sink for principal User:"
                + SINK_LACKING);
    }

    /**
     * A wrong password: streams, sink, alerts, jobs watch and jobs publish exit with status 3 and one line naming the
     * principal;
     * the collector holds its records, is not ready and says why. The password is never printed.
     */
    @Test
    void aWrongPasswordStopsEveryRoleLoudlyAndTheCollectorReportsNotReady() throws Exception {
        String wrong = "wrong-pw-Zk4";
        Map<String, Outcome> outcomes = new HashMap<>();
        outcomes.put("streams", run(streamsSettings("streams", wrong, "rdmamon-streams-wrong"), "streams"));
        outcomes.put("sink", run(sinkSettings("sink", wrong, "wrong"), "sink"));
        outcomes.put("alerts", run(alertsSettings("alerts", wrong, "http://127.0.0.1:9/"), "alerts"));
        outcomes.put("jobs-watch", run(jobsWatchSettings("jobs-watch", wrong), "jobs", "watch"));
        Path jobLines = dir.resolve("wrong-jobs.jsonl");
        Files.writeString(jobLines, new String(Json.toBytes(new TrainingTraffic().job("uid-wrong", List.of("n1"),
                List.of("mlx5_0")).record(JobRecord.RUNNING, System.currentTimeMillis())), StandardCharsets.UTF_8)
                + "\n");
        outcomes.put("jobs-publish", run(kafka.roleSettings("kafka.", "jobs-publish", wrong), "jobs", "publish",
                jobLines.toString()));
        outcomes.forEach((role, outcome) -> {
            assertThat(outcome.code).as(role + ": " + outcome.err).isEqualTo(AccessRefusedException.EXIT_CODE);
            assertThat(outcome.err).as(role).contains("rdmamon: authentication failed for principal User:" + role
                    + " (SASL_SSL SCRAM-SHA-512 to " + kafka.bootstrapServers() + ")");
            assertThat(outcome.seconds).as(role).isLessThan(60);
            assertThat(outcome.err).doesNotContain(wrong);
        });

        KafkaSampleSink collector = collector("collector", wrong);
        collector.publish(Topics.PORT_SAMPLES, "n1", System.currentTimeMillis(), "{}".getBytes(StandardCharsets.UTF_8));
        await().atMost(Duration.ofSeconds(30)).until(() -> collector.notReady().isPresent());
        assertThat(collector.notReady().get()).startsWith("authentication failed for principal User:collector");
        try (MetricsEndpoint endpoint = new MetricsEndpoint().serve("127.0.0.1", 0).readiness(collector::notReady)) {
            HttpResponse<String> ready = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    "http://127.0.0.1:" + endpoint.port() + "/ready")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(ready.statusCode()).isEqualTo(503);
            assertThat(ready.body()).startsWith("authentication failed for principal User:collector");
        }
        assertThat(registry.get("rdmamon.collector.kafka.refused").gauge().value()).isEqualTo(1.0);
        assertThat(collector.bufferedRecords()).isEqualTo(1);
        assertThat(messages()).noneMatch(m -> m.contains(wrong));
    }

    private record Outcome(int code, String err, long seconds) {
    }

    /** Runs {@code rdmamon ARGS --config FILE} in this JVM with {@code settings} in the file. */
    private Outcome run(Map<String, Object> settings, String... args) throws IOException {
        Path file = dir.resolve("role-" + UUID.randomUUID() + ".properties");
        Properties props = new Properties();
        settings.forEach((key, value) -> props.setProperty(key, String.valueOf(value)));
        try (Writer out = Files.newBufferedWriter(file)) {
            props.store(out, null);
        }
        StringWriter err = new StringWriter();
        CommandLine cmd = Main.commandLine();
        cmd.setErr(new PrintWriter(err, true));
        long start = System.nanoTime();
        int code = cmd.execute(Stream.concat(Stream.of(args), Stream.of("--config", file.toString()))
                .toArray(String[]::new));
        return new Outcome(code, err.toString(), (System.nanoTime() - start) / 1_000_000_000);
    }

    private static void publish(KafkaSampleSink collector, List<Event> events, long from, long to) {
        for (Event e : events) {
            if (e.ts() < from || e.ts() >= to) {
                continue;
            }
            if (e.port() != null) {
                collector.publish(Topics.PORT_SAMPLES, e.port().key(), e.ts(), Json.toBytes(e.port()));
            } else if (e.host() != null) {
                collector.publish(Topics.HOST_SAMPLES, e.host().key(), e.ts(), Json.toBytes(e.host()));
            }
        }
    }

    private KafkaSampleSink collector(String user, String password) {
        Map<String, Object> settings = kafka.roleSettings("kafka.", user, password);
        settings.put(PublishConfig.SPILL_BYTES_CONFIG, 0);
        KafkaSampleSink sink = new KafkaSampleSink(new PublishConfig(settings), registry);
        open.add(sink);
        return sink;
    }

    private Map<String, Object> streamsSettings(String user, String password, String applicationId) {
        Map<String, Object> settings = kafka.roleSettings("kafka.", user, password);
        settings.put(StreamsAppConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        settings.put(StreamsAppConfig.APPLICATION_ID_CONFIG, applicationId);
        settings.put(StreamsAppConfig.STATE_DIR_CONFIG, dir.resolve("state-" + applicationId).toString());
        settings.put(StreamsAppConfig.TOPICS_CREATE_CONFIG, false);
        settings.put(StreamsAppConfig.COMMIT_INTERVAL_CONFIG, 100);
        settings.put(StreamsAppConfig.METRICS_PORT_CONFIG, -1);
        // judged on the wall clock, which this test compresses
        settings.put(DetectorConfig.COLLECTOR_SILENT_AFTER_CONFIG, 3_600_000);
        return settings;
    }

    private Map<String, Object> sinkSettings(String user, String password, String database) {
        Map<String, Object> settings = kafka.roleSettings("kafka.", user, password);
        settings.put(InfluxSettings.URL_CONFIG, LocalInfluxd.shared().url());
        settings.put(InfluxSettings.DATABASE_CONFIG, database);
        settings.put(SinkConfig.METRICS_PORT_CONFIG, -1);
        return settings;
    }

    private Map<String, Object> alertsSettings(String user, String password, String webhookUrl) {
        Map<String, Object> settings = kafka.roleSettings("kafka.", user, password);
        settings.put(AlertsConfig.WEBHOOK_URL_CONFIG, webhookUrl);
        settings.put(AlertsConfig.METRICS_PORT_CONFIG, -1);
        return settings;
    }

    private Map<String, Object> jobsWatchSettings(String user, String password) {
        Map<String, Object> settings = kafka.roleSettings("kafka.", user, password);
        settings.put(JobsWatchConfig.JOB_LABEL_CONFIG, "rdmamon.io/job");
        settings.put(JobsWatchConfig.METRICS_PORT_CONFIG, -1);
        return settings;
    }

    private static List<RoleAcl> without(List<RoleAcl> acls, String topic) {
        return acls.stream().filter(acl -> !acl.name().equals(topic)).toList();
    }

    /** A webhook receiver that keeps every body it is sent; its URL. */
    private String webhook(List<String> bodies) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        server.start();
        open.add(() -> server.stop(0));
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
    }

    /** Every record of {@code topic}, read as admin. */
    private static List<ConsumerRecord<String, String>> readAll(String topic) {
        Map<String, Object> settings = new HashMap<>(kafka.clientSettings(SecuredKafka.ADMIN,
                SecuredKafka.password(SecuredKafka.ADMIN)));
        settings.put("isolation.level", "read_committed");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(settings, new StringDeserializer(),
                new StringDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            List<ConsumerRecord<String, String>> records = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 10_000;
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))
                    && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            return records;
        }
    }

    private List<String> messages() {
        synchronized (logs) {
            return logs.list.stream().map(ILoggingEvent::getFormattedMessage).collect(Collectors.toList());
        }
    }
}
