package io.rdmamon.bench;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.influx.InfluxQl;
import io.rdmamon.influx.InfluxSettings;
import io.rdmamon.influx.InfluxdProcess;
import io.rdmamon.model.Json;
import io.rdmamon.model.PortSample;
import io.rdmamon.sink.InfluxSink;
import io.rdmamon.sink.InfluxWriter;
import io.rdmamon.sink.PortSamplePoints;
import io.rdmamon.sink.RecordRouter;
import io.rdmamon.sink.SinkConfig;
import io.rdmamon.sink.SinkMetrics;
import io.rdmamon.support.EmbeddedKafkaBroker;
import io.rdmamon.support.FileTrees;
import io.rdmamon.support.KafkaOffsets;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.influxdb.InfluxDB;
import org.influxdb.dto.Point;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code rdmamon bench sink}: points per second into a local InfluxDB 1.x, three ways, same points, same batch size,
 * one request at a time:
 * <ol>
 *   <li>plain HTTP: pre-rendered line protocol POSTed with java.net.http (the server's own limit);</li>
 *   <li>sink write path: JSON records decoded, converted and written with influxdb-java, as the sink does;</li>
 *   <li>sink end to end: the records on a Kafka topic (in-process broker), the real {@link InfluxSink} consuming,
 *   writing and committing (timed from its first to its last accepted write).</li>
 * </ol>
 * Without {@code --influx-url} it starts a private influxd (Debian package) in a temporary directory.
 */
@Command(name = "sink", mixinStandardHelpOptions = true,
        description = "Measure points/s the sink writes into InfluxDB against plain HTTP batches of the same points.")
public final class SinkBenchmark implements Callable<Integer> {
    @Option(names = "--points", defaultValue = "200000", description = "Port samples to write (default ${DEFAULT-VALUE}).")
    int points;

    @Option(names = "--batch", defaultValue = "" + SinkConfig.DEFAULT_BATCH_MAX_POINTS,
            description = "Points per HTTP write (default ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--influx-url", description = "An InfluxDB 1.x to use instead of a private influxd.")
    String influxUrl;

    @Option(names = "--no-kafka", description = "Skip the end-to-end run through Kafka.")
    boolean noKafka;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new CommandLine(new SinkBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        InfluxdProcess own = influxUrl == null ? InfluxdProcess.startInTempDir(false) : null;
        try {
            String url = own == null ? influxUrl : own.url();
            List<byte[]> records = records(points);
            out.printf("sink benchmark: %,d port samples (1 point each), batches of %,d points, InfluxDB %s%n",
                    points, batch, url);
            List<byte[]> warmUp = records.subList(0, Math.min(records.size(), 20_000));
            plainHttp(url, "bench_warmup_http", warmUp);
            writePath(url, "bench_warmup_sink", warmUp);

            double http = plainHttp(url, "bench_http", records);
            double write = writePath(url, "bench_write", records);
            out.printf("  plain HTTP POST (line protocol pre-rendered)  %,12.0f points/s%n", http);
            out.printf("  sink write path (JSON -> points -> write)     %,12.0f points/s  (%.2f of plain HTTP)%n",
                    write, write / http);
            if (!noKafka) {
                EndToEnd e2e = endToEnd(url, "bench_sink", records);
                out.printf("  sink end to end (Kafka -> InfluxDB, commit)  %,12.0f points/s  (%.2f of plain HTTP)%n",
                        e2e.pointsPerSecond(), e2e.pointsPerSecond() / http);
                out.printf("    timed over %d writes after the first; %.0f%% of that time inside InfluxDB write requests%n",
                        e2e.writes(), 100 * e2e.writeShare());
            }
            out.flush();
            return 0;
        } finally {
            if (own != null) {
                own.close();
            }
        }
    }

    /** Port samples of 50 nodes x 8 devices, one second apart: every record a distinct point. */
    static List<byte[]> records(int count) {
        long base = Instant.now().minusSeconds(count / 400 + 3_600).toEpochMilli();
        List<byte[]> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            double rate = 1.0E9 + i % 1000;
            records.add(Json.toBytes(new PortSample(1, "gpu-" + (i % 50), "mlx5_" + (i / 50 % 8), 1,
                    base + (i / 400) * 1000L, 1000, "sysfs", "ACTIVE", "LinkUp", "InfiniBand", 25_000_000_000L,
                    rate, rate, rate / 4096, rate / 4096, Map.of(), Map.of())));
        }
        return records;
    }

    private double plainHttp(String url, String database, List<byte[]> records) throws Exception {
        createDatabase(url, database);
        PortSamplePoints converter = new PortSamplePoints();
        List<String> bodies = new ArrayList<>();
        StringBuilder body = new StringBuilder();
        int inBody = 0;
        for (byte[] record : records) {
            for (Point p : converter.toPoints(Json.MAPPER.readValue(record, PortSample.class))) {
                body.append(p.lineProtocol(TimeUnit.MILLISECONDS)).append('\n');
                if (++inBody == batch) {
                    bodies.add(body.toString());
                    body.setLength(0);
                    inBody = 0;
                }
            }
        }
        if (inBody > 0) {
            bodies.add(body.toString());
        }
        HttpClient client = HttpClient.newHttpClient();
        URI write = URI.create(url + "/write?db=" + database + "&rp=autogen&precision=ms");
        long start = System.nanoTime();
        for (String lines : bodies) {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(write)
                    .POST(HttpRequest.BodyPublishers.ofString(lines)).build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 204) {
                throw new IllegalStateException("write failed: " + response.statusCode() + " " + response.body());
            }
        }
        return records.size() / seconds(start);
    }

    private double writePath(String url, String database, List<byte[]> records) throws Exception {
        createDatabase(url, database);
        SinkConfig config = new SinkConfig(settings(url, database, Map.of()));
        SinkMetrics metrics = new SinkMetrics(new SimpleMeterRegistry());
        RecordRouter router = new RecordRouter(config, metrics);
        try (InfluxDB influx = config.influx().connect()) {
            InfluxWriter writer = new InfluxWriter(influx, config.influx(), metrics);
            long start = System.nanoTime();
            List<Point> pending = new ArrayList<>(batch);
            long offset = 0;
            for (byte[] record : records) {
                pending.addAll(router.toPoints(new ConsumerRecord<>(config.portSamplesTopic(), 0, offset++, null,
                        record)));
                if (pending.size() >= batch) {
                    writer.write(pending);
                    pending = new ArrayList<>(batch);
                }
            }
            writer.write(pending);
            return records.size() / seconds(start);
        }
    }

    private record EndToEnd(double pointsPerSecond, long writes, double writeShare) {
    }

    private EndToEnd endToEnd(String url, String database, List<byte[]> records) throws Exception {
        createDatabase(url, database);
        Path kafkaDir = Files.createTempDirectory("rdmamon-bench-kafka-");
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(kafkaDir, 0)) {
            Map<String, Object> topics = new HashMap<>();
            for (String key : List.of(SinkConfig.TOPIC_PORT_SAMPLES_CONFIG, SinkConfig.TOPIC_HOST_SAMPLES_CONFIG,
                    SinkConfig.TOPIC_JOB_BANDWIDTH_CONFIG, SinkConfig.TOPIC_LINK_HEALTH_CONFIG,
                    SinkConfig.TOPIC_ALERTS_CONFIG, SinkConfig.TOPIC_DEAD_LETTER_CONFIG)) {
                topics.put(key, "bench." + key);
            }
            String topic = (String) topics.get(SinkConfig.TOPIC_PORT_SAMPLES_CONFIG);
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
                KafkaOffsets.createTopics(admin, topics.values().stream()
                        .map(t -> new NewTopic((String) t, 1, (short) 1)).toList());
            }
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                    ProducerConfig.LINGER_MS_CONFIG, 20), new ByteArraySerializer(), new ByteArraySerializer())) {
                records.forEach(r -> producer.send(new ProducerRecord<>(topic, r)));
            }
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            topics.put("kafka.bootstrap.servers", broker.bootstrapServers());
            topics.put("kafka.group.id", "bench-sink");
            SinkConfig config = new SinkConfig(settings(url, database, topics));
            try (InfluxSink sink = new InfluxSink(config, registry)) {
                Thread thread = new Thread(sink, "bench-sink");
                thread.start();
                Progress first = awaitWritten(registry, 1);
                Progress last = awaitWritten(registry, records.size());
                // timed from the first accepted write: the consumer's group join is start-up, not throughput
                double elapsed = (last.nanos() - first.nanos()) / 1e9;
                return new EndToEnd((last.written() - first.written()) / elapsed, last.writes() - first.writes(),
                        (last.writeSeconds() - first.writeSeconds()) / elapsed);
            }
        } finally {
            FileTrees.deleteQuietly(kafkaDir);
        }
    }

    /** The sink's counters at one moment: points accepted, write requests, seconds spent inside them. */
    private record Progress(long nanos, double written, long writes, double writeSeconds) {
    }

    private static Progress awaitWritten(SimpleMeterRegistry registry, long atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        while (System.nanoTime() < deadline) {
            double written = registry.counter("rdmamon.sink.points.written").count();
            if (written >= atLeast) {
                var writes = registry.timer("rdmamon.sink.write");
                return new Progress(System.nanoTime(), written, writes.count(), writes.totalTime(TimeUnit.SECONDS));
            }
            Thread.sleep(1);
        }
        throw new IllegalStateException("the sink wrote fewer than " + atLeast + " points in 10 minutes");
    }

    private Map<String, Object> settings(String url, String database, Map<String, Object> extra) {
        Map<String, Object> props = new HashMap<>(extra);
        props.put(InfluxSettings.URL_CONFIG, url);
        props.put(InfluxSettings.DATABASE_CONFIG, database);
        props.put(InfluxSettings.RETENTION_POLICY_CONFIG, "autogen");
        props.put(SinkConfig.BATCH_MAX_POINTS_CONFIG, Integer.toString(batch));
        props.put(SinkConfig.METRICS_PORT_CONFIG, "-1");
        return props;
    }

    private static void createDatabase(String url, String database) {
        try (InfluxDB influx = org.influxdb.InfluxDBFactory.connect(url)) {
            InfluxQl.execute(influx, database, "DROP DATABASE \"" + database + "\"");
            InfluxQl.execute(influx, database, "CREATE DATABASE \"" + database + "\"");
        }
    }

    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }
}
