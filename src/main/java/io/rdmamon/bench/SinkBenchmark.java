package io.rdmamon.bench;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.influx.InfluxQl;
import io.rdmamon.influx.InfluxSettings;
import io.rdmamon.influx.InfluxdProcess;
import com.fasterxml.jackson.databind.JsonNode;
import io.rdmamon.model.Json;
import io.rdmamon.model.PortSample;
import io.rdmamon.sink.InfluxWriter;
import io.rdmamon.sink.RecordRouter;
import io.rdmamon.sink.SinkConfig;
import io.rdmamon.sink.SinkMetrics;
import io.rdmamon.sink.WriteBody;
import io.rdmamon.sink.WritePipeline;
import io.rdmamon.support.EmbeddedKafkaBroker;
import io.rdmamon.support.FileTrees;
import io.rdmamon.support.KafkaOffsets;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.influxdb.InfluxDB;
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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code rdmamon bench sink}: points per second into a local InfluxDB 1.x, three ways, same points, same request
 * bodies, one request at a time:
 * <ol>
 *   <li>plain HTTP: the line protocol rendered beforehand, POSTed with java.net.http (the server's own limit);</li>
 *   <li>sink write path: JSON records decoded, rendered and written as the sink does (its {@link RecordRouter} and
 *   {@link WritePipeline}), without Kafka;</li>
 *   <li>sink end to end: the records on a Kafka topic (in-process broker, written in one transaction, as the stream
 *   app writes), {@code rdmamon sink} in a JVM of its own consuming, writing and committing: warmed up on as many
 *   other points as it is timed on (the write path's router has rendered all of them for plain HTTP first), then
 *   timed from the transaction's commit until the group has committed every offset, with the sink process's CPU per
 *   point over that time.</li>
 * </ol>
 * {@code --instances N} adds scale-out: the topic gets N partitions, N sink processes share it in one consumer group,
 * and their aggregate rate is set against one sink process on the same topic and against plain HTTP with N requests
 * at a time. Without {@code --influx-url} it starts a private influxd (Debian package) in a temporary directory.
 */
@Command(name = "sink", mixinStandardHelpOptions = true,
        description = "Measure points/s the sink writes into InfluxDB against plain HTTP batches of the same points.")
public final class SinkBenchmark implements Callable<Integer> {
    private static final Duration GROUP_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(10);
    private static final int WARM_UP = 20_000;

    @Option(names = "--points", defaultValue = "200000", description = "Port samples to write (default ${DEFAULT-VALUE}).")
    int points;

    @Option(names = "--batch", defaultValue = "" + SinkConfig.DEFAULT_BATCH_MAX_POINTS,
            description = "Points per HTTP write (default ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--concurrency", defaultValue = "" + SinkConfig.DEFAULT_WRITE_CONCURRENCY,
            description = "The sink's influx.write.concurrency (default ${DEFAULT-VALUE}); plain HTTP stays at one "
                    + "request at a time per instance.")
    int concurrency;

    @Option(names = "--instances", defaultValue = "1",
            description = "Sink processes in one consumer group for the scale-out figures (default ${DEFAULT-VALUE}: "
                    + "none).")
    int instances;

    @Option(names = "--heap", defaultValue = "512m",
            description = "Max heap of each sink process (default ${DEFAULT-VALUE}).")
    String heap;

    @Option(names = "--sink-jvm", defaultValue = "",
            description = "More JVM options for the sink processes, space-separated (e.g. a flight recording).")
    String sinkJvm;

    @Option(names = "--influx-url", description = "An InfluxDB 1.x to use instead of a private influxd.")
    String influxUrl;

    @Option(names = "--no-kafka", description = "Skip the end-to-end runs through Kafka.")
    boolean noKafka;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The private influxd, whose CPU per point is printed beside each rate; null with {@code --influx-url}. */
    private InfluxdProcess influxd;

    public static void main(String[] args) {
        System.exit(new CommandLine(new SinkBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (instances < 1 || concurrency < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--instances and --concurrency must be >= 1");
        }
        PrintWriter out = spec.commandLine().getOut();
        influxd = influxUrl == null ? InfluxdProcess.startInTempDir(false) : null;
        try {
            String url = influxd == null ? influxUrl : influxd.url();
            List<byte[]> records = records(points);
            out.printf("sink benchmark: %,d port samples (1 point each), batches of %,d points, InfluxDB %s%n",
                    points, batch, url);
            List<byte[]> warmUp = records.subList(0, Math.min(records.size(), WARM_UP));
            plainHttp(url, "bench_warmup_http", bodies(url, warmUp), 1);
            writePath(url, "bench_warmup_sink", warmUp);

            List<WriteBody> bodies = bodies(url, records);
            InfluxdLoad before = influxdLoad(url);
            double http = plainHttp(url, "bench_http", bodies, 1);
            String httpLoad = influxdLoad(url).since(before, records.size());
            before = influxdLoad(url);
            double write = writePath(url, "bench_write", records);
            String writeLoad = influxdLoad(url).since(before, records.size());
            out.printf("  plain HTTP POST (line protocol pre-rendered)       %,12.0f points/s%s%n", http, httpLoad);
            out.printf("  sink write path (JSON -> line protocol -> write)   %,12.0f points/s  (%.2f of plain HTTP)%s%n",
                    write, write / http, writeLoad);
            if (!noKafka) {
                EndToEnd one = endToEnd(url, "bench_sink", records, 1, 1);
                out.printf("  sink end to end (Kafka -> sink process -> InfluxDB, commit) %,12.0f points/s  (%.2f of "
                        + "plain HTTP); sink process %.1f CPU µs per point%s%n", one.pointsPerSecond(),
                        one.pointsPerSecond() / http, one.cpuMicrosPerPoint(), one.influxdLoad());
                if (instances > 1) {
                    scaleOut(out, url, records);
                }
            }
            out.flush();
            return 0;
        } finally {
            if (influxd != null) {
                influxd.close();
            }
        }
    }

    private void scaleOut(PrintWriter out, String url, List<byte[]> records) throws Exception {
        double http = plainHttp(url, "bench_http_n", bodies(url, records), instances);
        EndToEnd one = endToEnd(url, "bench_sink_1", records, instances, 1);
        EndToEnd many = endToEnd(url, "bench_sink_n", records, instances, instances);
        out.printf("  scale-out: %d partitions, one consumer group%n", instances);
        out.printf("    plain HTTP, %d requests at a time              %,12.0f points/s%n", instances, http);
        out.printf("    1 sink process                                 %,12.0f points/s  (%.2f of plain HTTP x%d); "
                + "%.1f CPU µs per point%n", one.pointsPerSecond(), one.pointsPerSecond() / http, instances,
                one.cpuMicrosPerPoint());
        out.printf("    %d sink processes                               %,12.0f points/s  (%.2f of 1 process, %.2f of "
                        + "plain HTTP x%d); %.1f CPU µs per point%n", instances, many.pointsPerSecond(),
                many.pointsPerSecond() / one.pointsPerSecond(), many.pointsPerSecond() / http, instances,
                many.cpuMicrosPerPoint());
    }

    /** Port samples of 50 nodes x 8 devices, one second apart: every record a distinct point. */
    static List<byte[]> records(int count) {
        return records(count, Instant.now().minusSeconds(count / 400 + 3_600).toEpochMilli());
    }

    /** As {@link #records(int)}, the first at {@code base} (epoch ms). */
    static List<byte[]> records(int count, long base) {
        List<byte[]> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            double rate = 1.0E9 + i % 1000;
            records.add(Json.toBytes(new PortSample(1, "gpu-" + (i % 50), "mlx5_" + (i / 50 % 8), 1,
                    base + (i / 400) * 1000L, 1000, "sysfs", "ACTIVE", "LinkUp", "InfiniBand", 25_000_000_000L,
                    rate, rate, rate / 4096, rate / 4096, Map.of(), Map.of())));
        }
        return records;
    }

    /** The records as polls of {@code batch} records from one partition, as the sink's consumer returns them. */
    private List<ConsumerRecords<byte[], byte[]>> polls(SinkConfig config, List<byte[]> records) {
        TopicPartition partition = new TopicPartition(config.portSamplesTopic(), 0);
        List<ConsumerRecords<byte[], byte[]>> polls = new ArrayList<>();
        for (int from = 0; from < records.size(); from += batch) {
            List<ConsumerRecord<byte[], byte[]>> poll = new ArrayList<>(batch);
            for (int i = from; i < Math.min(records.size(), from + batch); i++) {
                poll.add(new ConsumerRecord<>(partition.topic(), 0, i, null, records.get(i)));
            }
            polls.add(new ConsumerRecords<>(Map.of(partition, poll), Map.of()));
        }
        return polls;
    }

    /** The request bodies the sink sends for {@code records}, rendered beforehand: plain HTTP posts the same bytes. */
    private List<WriteBody> bodies(String url, List<byte[]> records) {
        SinkConfig config = new SinkConfig(settings(url, "unused", Map.of()));
        RecordRouter router = new RecordRouter(config, new SinkMetrics(new SimpleMeterRegistry()));
        List<WriteBody> bodies = new ArrayList<>();
        polls(config, records).forEach(poll -> bodies.addAll(router.route(poll).bodies()));
        return bodies;
    }

    /** POSTs {@code bodies}, {@code parallel} requests at a time; points/s. */
    private static double plainHttp(String url, String database, List<WriteBody> bodies, int parallel)
            throws Exception {
        createDatabase(url, database);
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        URI write = URI.create(url + "/write?db=" + database + "&rp=autogen&precision=ms");
        AtomicInteger next = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(parallel);
        try {
            long start = System.nanoTime();
            List<Future<?>> posting = new ArrayList<>();
            for (int t = 0; t < parallel; t++) {
                posting.add(threads.submit(() -> {
                    for (int i = next.getAndIncrement(); i < bodies.size(); i = next.getAndIncrement()) {
                        HttpResponse<String> response = client.send(HttpRequest.newBuilder(write)
                                        .POST(HttpRequest.BodyPublishers.ofByteArray(bodies.get(i).lines())).build(),
                                HttpResponse.BodyHandlers.ofString());
                        if (response.statusCode() != 204) {
                            throw new IllegalStateException("write failed: " + response.statusCode() + " "
                                    + response.body());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : posting) {
                f.get();
            }
            return bodies.stream().mapToInt(WriteBody::points).sum() / seconds(start);
        } finally {
            threads.shutdownNow();
        }
    }

    /** Decode, render and write as the sink does, polls handed to its write pipeline; points/s. */
    private double writePath(String url, String database, List<byte[]> records) throws Exception {
        createDatabase(url, database);
        SinkConfig config = new SinkConfig(settings(url, database, Map.of()));
        SinkMetrics metrics = new SinkMetrics(new SimpleMeterRegistry());
        RecordRouter router = new RecordRouter(config, metrics);
        List<ConsumerRecords<byte[], byte[]>> polls = polls(config, records);
        try (InfluxWriter writer = new InfluxWriter(config.influx(), metrics);
             WritePipeline pipeline = WritePipeline.withoutDeadLetters(writer, config.backoff(), metrics,
                     concurrency)) {
            long start = System.nanoTime();
            for (ConsumerRecords<byte[], byte[]> poll : polls) {
                while (pipeline.full()) {
                    pipeline.awaitOldest(Duration.ofSeconds(1));
                    pipeline.takeDone();
                }
                pipeline.submit(router.route(poll));
            }
            while (!pipeline.idle()) {
                pipeline.awaitOldest(Duration.ofSeconds(1));
                pipeline.takeDone();
            }
            return records.size() / seconds(start);
        }
    }

    private record EndToEnd(double pointsPerSecond, double cpuMicrosPerPoint, String influxdLoad) {
    }

    /**
     * What InfluxDB has served so far: write requests (its {@code /debug/vars}), and the CPU seconds of the private
     * influxd (NaN for one given by URL). Printed beside each rate, per path: the paths must send the same requests,
     * and on a machine of few cores each shares the CPU with InfluxDB, whose CPU per point says what is left for it.
     */
    private record InfluxdLoad(long writeRequests, double cpuSeconds) {
        String since(InfluxdLoad before, int points) {
            String cpu = Double.isNaN(cpuSeconds) ? "" : String.format("; influxd %.1f CPU µs per point",
                    (cpuSeconds - before.cpuSeconds) * 1e6 / points);
            return String.format("; %,d write requests%s", writeRequests - before.writeRequests, cpu);
        }
    }

    private InfluxdLoad influxdLoad(String url) throws Exception {
        HttpResponse<byte[]> vars = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url
                + "/debug/vars")).build(), HttpResponse.BodyHandlers.ofByteArray());
        long requests = 0;
        for (JsonNode module : Json.MAPPER.readTree(vars.body())) {
            if ("httpd".equals(module.path("name").asText())) {
                requests += module.path("values").path("writeReq").asLong();
            }
        }
        return new InfluxdLoad(requests, influxd == null ? Double.NaN : ChildJvm.cpuSeconds(influxd.pid()));
    }

    /**
     * {@code sinks} sink processes in one group on a topic of {@code partitions} partitions: started and assigned
     * first, then the records written in one transaction, which read_committed consumers see all at once.
     */
    private EndToEnd endToEnd(String url, String database, List<byte[]> records, int partitions, int sinks)
            throws Exception {
        createDatabase(url, database);
        Path work = Files.createTempDirectory("rdmamon-bench-sink-");
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(work.resolve("kafka"), 0);
             Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            List<String> args = new ArrayList<>(List.of("sink",
                    "--set", "kafka.bootstrap.servers=" + broker.bootstrapServers(),
                    "--set", "kafka.group.id=bench-sink",
                    "--set", "kafka.max.poll.records=" + batch,
                    "--set", SinkConfig.WRITE_CONCURRENCY_CONFIG + "=" + concurrency));
            settings(url, database, Map.of()).forEach((key, value) -> args.addAll(List.of("--set", key + "=" + value)));
            List<NewTopic> topics = new ArrayList<>();
            for (String key : List.of(SinkConfig.TOPIC_PORT_SAMPLES_CONFIG, SinkConfig.TOPIC_HOST_SAMPLES_CONFIG,
                    SinkConfig.TOPIC_GPU_SAMPLES_CONFIG, SinkConfig.TOPIC_JOB_BANDWIDTH_CONFIG, SinkConfig.TOPIC_LINK_HEALTH_CONFIG,
                    SinkConfig.TOPIC_ALERTS_CONFIG, SinkConfig.TOPIC_DEAD_LETTER_CONFIG)) {
                boolean port = key.equals(SinkConfig.TOPIC_PORT_SAMPLES_CONFIG);
                topics.add(new NewTopic("bench." + key, port ? partitions : 1, (short) 1));
                args.addAll(List.of("--set", key + "=bench." + key));
            }
            KafkaOffsets.createTopics(admin, topics);
            String topic = "bench." + SinkConfig.TOPIC_PORT_SAMPLES_CONFIG;
            List<ChildJvm> children = new ArrayList<>();
            try {
                for (int i = 0; i < sinks; i++) {
                    children.add(ChildJvm.startServerRole(heap, work.resolve("sink-" + i + ".log"), args,
                            ChildJvm.splitOptions(sinkJvm)));
                }
                awaitAssigned(admin, "bench-sink", topic, sinks, children);
                // warmed up as the write path is (its router has rendered every body for plain HTTP before it is
                // timed): as many other points (an hour earlier) written first, so that the process is timed with
                // its hot code compiled, as a sink that has been running is; after 20,000 the compiler threads
                // still took a third of its CPU while it was timed
                long warmUpBase = Instant.now().minusSeconds(records.size() / 400 + 7_200).toEpochMilli();
                produceInOneTransaction(broker.bootstrapServers(), topic, records(records.size(), warmUpBase));
                awaitCommitted(admin, "bench-sink", topic, endOffset(admin, topic), children);
                double cpuBefore = cpuSeconds(children);
                InfluxdLoad influxdBefore = influxdLoad(url);
                long start = produceInOneTransaction(broker.bootstrapServers(), topic, records);
                awaitCommitted(admin, "bench-sink", topic, endOffset(admin, topic), children);
                double seconds = seconds(start);
                double cpu = cpuSeconds(children) - cpuBefore;
                return new EndToEnd(records.size() / seconds, cpu * 1e6 / records.size(),
                        influxdLoad(url).since(influxdBefore, records.size()));
            } finally {
                for (ChildJvm child : children) {
                    child.close();
                }
            }
        } finally {
            FileTrees.deleteQuietly(work);
        }
    }

    /** Writes {@code records} round robin over the topic's partitions in one transaction; when it committed. */
    private static long produceInOneTransaction(String bootstrap, String topic, List<byte[]> records) {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "bench-sink-input",
                ProducerConfig.LINGER_MS_CONFIG, 20,
                ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024), new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            int partitions = producer.partitionsFor(topic).size();
            for (int i = 0; i < records.size(); i++) {
                producer.send(new ProducerRecord<>(topic, i % partitions, null, records.get(i)));
            }
            producer.commitTransaction();
            return System.nanoTime();
        }
    }

    /** Waits until {@code sinks} members of the group share the topic's partitions: no rebalance while timed. */
    private static void awaitAssigned(Admin admin, String group, String topic, int sinks, List<ChildJvm> children)
            throws Exception {
        long deadline = System.nanoTime() + GROUP_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            for (ChildJvm child : children) {
                child.checkAlive();
            }
            ConsumerGroupDescription group0;
            try {
                group0 = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof GroupIdNotFoundException)) {
                    throw e;
                }
                Thread.sleep(100); // no member has joined yet
                continue;
            }
            long withPartitions = group0.members().stream().map(MemberDescription::assignment)
                    .filter(a -> a.topicPartitions().stream().anyMatch(p -> p.topic().equals(topic))).count();
            if (group0.members().size() == sinks && withPartitions == sinks) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the sink processes did not join group " + group + " in " + GROUP_TIMEOUT);
    }

    private static void awaitCommitted(Admin admin, String group, String topic, long end, List<ChildJvm> children)
            throws Exception {
        long deadline = System.nanoTime() + RUN_TIMEOUT.toNanos();
        int checks = 0;
        while (System.nanoTime() < deadline) {
            long committed = KafkaOffsets.committed(admin, group).entrySet().stream()
                    .filter(e -> e.getKey().topic().equals(topic)).mapToLong(Map.Entry::getValue).sum();
            if (committed >= end) {
                return;
            }
            if (++checks % 100 == 0) {
                for (ChildJvm child : children) {
                    child.checkAlive();
                }
            }
            Thread.sleep(5);
        }
        throw new IllegalStateException("the sink did not commit every offset of " + topic + " in " + RUN_TIMEOUT);
    }

    /** The topic's end offsets summed: its records and transaction markers. */
    private static long endOffset(Admin admin, String topic) throws Exception {
        return KafkaOffsets.endOffsets(admin, List.of(topic)).values().stream().mapToLong(Long::longValue).sum();
    }

    private static double cpuSeconds(List<ChildJvm> children) throws Exception {
        double cpu = 0;
        for (ChildJvm child : children) {
            cpu += child.cpuSeconds();
        }
        return cpu;
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
