package io.rdmamon.bench;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.collector.publish.KafkaSampleSink;
import io.rdmamon.collector.publish.PendingRecord;
import io.rdmamon.collector.publish.PublishConfig;
import io.rdmamon.collector.publish.PublishMetrics;
import io.rdmamon.model.Json;
import io.rdmamon.model.PortSample;
import io.rdmamon.support.EmbeddedKafkaBroker;
import io.rdmamon.support.FileTrees;
import io.rdmamon.support.KafkaOffsets;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Figures for docs/performance.md, not a test: bytes per typical port record (JSON, and on the wire in compressed batches),
 * and records per second through {@link KafkaSampleSink} into a real broker (an in-process one unless
 * {@code --bootstrap} names another).
 *
 * <p>{@code java -cp 'target/classes:target/lib/*' io.rdmamon.collector.publish.PublishBenchmark [--records N]
 * [--bootstrap host:port] [--set key=value ...]}
 */
public final class PublishBenchmark {
    private static final String NODE = "gpu-node-017";
    private static final int DEVICES = 8;
    private static final int PORTS = 2;
    private static final int POOL_PASSES = 256;
    private static final int PARTITIONS = 6;
    private static final List<String> CODECS = List.of("none", "gzip", "lz4", "zstd");

    private PublishBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int records = 200_000;
        String bootstrap = null;
        Map<String, Object> overrides = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--records" -> records = Integer.parseInt(args[i + 1]);
                case "--bootstrap" -> bootstrap = args[i + 1];
                case "--set" -> {
                    String[] kv = args[i + 1].split("=", 2);
                    overrides.put(kv[0], kv[1]);
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        run(bootstrap, records, overrides, System.out);
    }

    /**
     * Prints the figures to {@code out}; {@code bootstrap} null starts an in-process single-node broker;
     * {@code overrides} are sink settings ({@code kafka.*}, {@code collector.buffer.*}) on top of the defaults.
     */
    public static void run(String bootstrap, int records, Map<String, Object> overrides, PrintStream out)
            throws Exception {
        printRecordSizes(out);
        Path work = Files.createTempDirectory("rdmamon-publish-bench");
        try {
            if (bootstrap != null) {
                runAll(bootstrap, "broker " + bootstrap, records, overrides, work, out);
            } else {
                try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(work.resolve("kafka"), 0)) {
                    runAll(broker.bootstrapServers(), "in-process single-node broker", records, overrides, work, out);
                }
            }
        } finally {
            FileTrees.deleteQuietly(work);
        }
    }

    private static void printRecordSizes(PrintStream out) {
        PortSample mlx5 = mlx5Sample(new Random(1), 1_700_000_000_000L, 3, 1);
        PortSample erdma = erdmaSample(new Random(2), 1_700_000_000_000L);
        PortSample quiet = new PortSample(PortSample.VERSION, NODE, "mlx5_4", 1, 1_700_000_000_000L, 1000,
                PortSample.SOURCE_SYSFS, "ACTIVE", "LinkUp", "InfiniBand", 50_000_000_000L, 0.0, 0.0, 0.0, 0.0,
                Map.of(), Map.of());
        out.println("== Port record sizes (JSON value as published; key node/device/port) ==");
        Map<String, PortSample> samples = new LinkedHashMap<>();
        samples.put("mlx5 InfiniBand port, 3 error counters", mlx5);
        samples.put("eRDMA port, 1 drop counter", erdma);
        samples.put("mlx5 port, idle, no errors", quiet);
        for (Map.Entry<String, PortSample> e : samples.entrySet()) {
            byte[] value = Json.toBytes(e.getValue());
            PendingRecord pending = new PendingRecord("rdma.port-samples", e.getValue().key(), 0, value, 0);
            out.printf("%-40s value %4d B, key %2d B, buffered/spilled as %4d B%n", e.getKey(), value.length,
                    e.getValue().key().length(), pending.sizeBytes());
        }
        out.println("example: " + new String(Json.toBytes(mlx5), StandardCharsets.UTF_8));
        out.println();
    }

    private static void runAll(String bootstrap, String where, int records, Map<String, Object> overrides, Path work,
                               PrintStream out) throws Exception {
        List<byte[]> pool = valuePool();
        out.printf("== Through KafkaSampleSink into the %s (topic with %d partitions, %d ports of one node) ==%n",
                where, PARTITIONS, DEVICES * PORTS);
        out.println("-- a collector: one pass of 16 ports every 100 ms for 3 s (batches as in production) --");
        out.printf("%-6s %18s %14s%n", "codec", "wire bytes/record", "latency avg ms");
        for (String codec : CODECS) {
            Map<String, Double> r = measure(bootstrap, codec, pool, 30 * DEVICES * PORTS, 100, overrides, work);
            out.printf("%-6s %18.0f %14.1f%n", codec, r.get("wire"), r.get("latencyMs"));
        }
        out.printf("-- catch-up: %,d records published at once (default buffer: 16 MiB memory, rest spilled) --%n",
                records);
        out.printf("%-6s %12s %18s %16s %16s %12s%n", "codec", "records/s", "wire bytes/record", "publish() avg us",
                "publish() max ms", "spilled");
        for (String codec : CODECS) {
            Map<String, Double> r = measure(bootstrap, codec, pool, records, 0, overrides, work);
            out.printf("%-6s %,12.0f %18.0f %16.2f %16.2f %,12.0f%n", codec, r.get("rate"), r.get("wire"),
                    r.get("publishUs"), r.get("publishMaxMs"), r.get("spilled"));
        }
    }

    /** Publishes {@code count} records ({@code intervalMs} between passes, 0: at once) and waits for every ack. */
    private static Map<String, Double> measure(String bootstrap, String codec, List<byte[]> pool, int count,
                                               long intervalMs, Map<String, Object> overrides, Path work)
            throws Exception {
        String topic = "bench-" + codec + "-" + UUID.randomUUID().toString().substring(0, 8);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            KafkaOffsets.createTopics(admin, List.of(new NewTopic(topic, PARTITIONS, (short) 1)));
        }
        Map<String, Object> settings = new HashMap<>();
        settings.put(PublishConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        settings.put(PublishConfig.COMPRESSION_CONFIG, codec);
        settings.put(PublishConfig.SPILL_PATH_CONFIG, work.resolve("spill-" + topic).toString());
        settings.put(PublishConfig.CLIENT_ID_CONFIG, "bench-" + codec);
        settings.putAll(overrides);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        int ports = DEVICES * PORTS;
        long publishNanos = 0;
        long publishMaxNanos = 0;
        long start = System.nanoTime();
        Map<String, Double> result = new LinkedHashMap<>();
        try (KafkaSampleSink sink = new KafkaSampleSink(new PublishConfig(settings), registry)) {
            for (int i = 0; i < count; i++) {
                int pass = i / ports;
                int port = i % ports;
                String key = PortSample.key(NODE, "mlx5_" + (port / PORTS), 1 + port % PORTS);
                byte[] value = pool.get((pass % POOL_PASSES) * ports + port);
                long t0 = System.nanoTime();
                sink.publish(topic, key, 1_700_000_000_000L + pass * 1000L, value);
                long took = System.nanoTime() - t0;
                publishNanos += took;
                publishMaxNanos = Math.max(publishMaxNanos, took);
                if (intervalMs > 0 && port == ports - 1) {
                    Thread.sleep(intervalMs);
                }
            }
            while (sink.bufferedRecords() > 0) {
                Thread.sleep(5);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            Map<String, String> tags = Map.of("topic", topic);
            double bytes = sink.producerMetric("producer-topic-metrics", "byte-total", tags);
            double sent = sink.producerMetric("producer-topic-metrics", "record-send-total", tags);
            result.put("rate", count / seconds);
            result.put("wire", bytes / sent);
            result.put("publishUs", publishNanos / 1e3 / count);
            result.put("publishMaxMs", publishMaxNanos / 1e6);
            result.put("spilled", registry.get(PublishMetrics.SPILLED).counter().count());
            result.put("latencyMs", registry.get(PublishMetrics.LATENCY).timer()
                    .mean(TimeUnit.MILLISECONDS));
        }
        return result;
    }

    /** Distinct values for {@link #POOL_PASSES} passes of every port, so batches compress as real ones would. */
    private static List<byte[]> valuePool() {
        Random random = new Random(42);
        List<byte[]> pool = new ArrayList<>();
        for (int pass = 0; pass < POOL_PASSES; pass++) {
            for (int device = 0; device < DEVICES; device++) {
                for (int port = 1; port <= PORTS; port++) {
                    pool.add(Json.toBytes(mlx5Sample(random, 1_700_000_000_000L + pass * 1000L, device, port)));
                }
            }
        }
        return pool;
    }

    /** A busy 400 Gb/s InfiniBand port during all-reduce, with a few retransmits and congestion notifications. */
    static PortSample mlx5Sample(Random random, long ts, int device, int port) {
        double tx = 4.1e10 * (0.9 + 0.2 * random.nextDouble());
        double rx = 4.1e10 * (0.9 + 0.2 * random.nextDouble());
        long cnpSent = 3_000 + random.nextInt(1_000);
        long cnpHandled = 3_000 + random.nextInt(1_000);
        long outOfSequence = random.nextInt(20);
        Map<String, Long> errors = new LinkedHashMap<>();
        errors.put("np_cnp_sent", cnpSent);
        errors.put("rp_cnp_handled", cnpHandled);
        errors.put("out_of_sequence", outOfSequence);
        return new PortSample(PortSample.VERSION, NODE, "mlx5_" + device, port, ts, 1000 + random.nextInt(3),
                PortSample.SOURCE_SYSFS, "ACTIVE", "LinkUp", "InfiniBand", 50_000_000_000L, tx, rx, tx / 4096,
                rx / 4096, errors, Map.of("congestion", cnpSent + cnpHandled, "retransmit", outOfSequence));
    }

    /** An Alibaba eRDMA port hitting its bandwidth limit. */
    static PortSample erdmaSample(Random random, long ts) {
        double tx = 2.3e10 * (0.9 + 0.2 * random.nextDouble());
        double rx = 2.3e10 * (0.9 + 0.2 * random.nextDouble());
        long drops = 1 + random.nextInt(50);
        return new PortSample(PortSample.VERSION, NODE, "erdma_0", 1, ts, 1000, PortSample.SOURCE_SYSFS, "ACTIVE",
                "LinkUp", "Ethernet", 25_000_000_000L, tx, rx, tx / 4096, rx / 4096,
                Map.of("tx_bps_limit_drop_cnt", drops), Map.of("drop", drops));
    }
}
