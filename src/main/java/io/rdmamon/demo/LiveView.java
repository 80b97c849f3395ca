package io.rdmamon.demo;

import io.rdmamon.model.Alert;
import io.rdmamon.model.JobBandwidth;
import io.rdmamon.model.Json;
import io.rdmamon.model.PortSample;
import io.rdmamon.model.Topics;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The demo's terminal view: reads the topics like any other consumer (no shortcut into the collectors) and redraws a
 * per-node, per-port traffic table, per-job bandwidth and the latest alerts once a second.
 */
public final class LiveView implements Runnable, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LiveView.class);
    private static final int ALERT_LINES = 8;

    private final KafkaConsumer<String, byte[]> consumer;
    private final PrintWriter out;
    private final boolean ansi;
    private final String title;
    private final Map<String, PortSample> ports = new TreeMap<>();
    private final Map<String, JobBandwidth> jobs = new TreeMap<>();
    private final Deque<Alert> alerts = new ArrayDeque<>();
    private long recordsSeen;
    private volatile boolean running = true;

    public LiveView(String bootstrapServers, PrintWriter out, boolean ansi, String title) {
        this.consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG, "rdmamon-demo-view-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
                new StringDeserializer(), new ByteArrayDeserializer());
        this.out = out;
        this.ansi = ansi;
        this.title = title;
    }

    @Override
    public void run() {
        consumer.subscribe(List.of(Topics.PORT_SAMPLES, Topics.JOB_BANDWIDTH, Topics.ALERTS));
        long nextDraw = System.currentTimeMillis() + 1_000;
        try {
            while (running) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    take(record);
                }
                if (System.currentTimeMillis() >= nextDraw) {
                    out.print(render());
                    out.flush();
                    nextDraw += 1_000;
                }
            }
        } catch (WakeupException e) {
            // close() asked us to stop
        } finally {
            consumer.close();
        }
    }

    /** One record of the topics into the view (package-private for the test). */
    void take(ConsumerRecord<String, byte[]> record) {
        recordsSeen++;
        try {
            switch (record.topic()) {
                case Topics.PORT_SAMPLES -> {
                    PortSample s = Json.MAPPER.readValue(record.value(), PortSample.class);
                    ports.put(s.key(), s);
                }
                case Topics.JOB_BANDWIDTH -> {
                    JobBandwidth b = Json.MAPPER.readValue(record.value(), JobBandwidth.class);
                    jobs.put(b.namespace() + "/" + b.job(), b);
                }
                case Topics.ALERTS -> {
                    alerts.addFirst(Json.MAPPER.readValue(record.value(), Alert.class));
                    while (alerts.size() > ALERT_LINES) {
                        alerts.removeLast();
                    }
                }
                default -> {
                }
            }
        } catch (IOException e) {
            log.warn("view skips an unreadable record on {}: {}", record.topic(), e.getMessage());
        }
    }

    /** The whole screen as text (package-private for the test). */
    String render() {
        StringBuilder sb = new StringBuilder();
        if (ansi) {
            sb.append("\033[H\033[2J");
        }
        sb.append(title).append("   records seen: ").append(recordsSeen).append('\n').append('\n');
        // as wide as the longest node name: an ACS pod's collector is named <namespace>.<pod>
        int width = Math.max(10, ports.values().stream().mapToInt(s -> s.node().length()).max().orElse(0));
        String row = "%-" + width + "s %-12s %-6s %-8s %9s %9s  %-12s %s%n";
        sb.append(String.format(row,
                "NODE", "DEVICE/PORT", "SOURCE", "STATE", "TX Gb/s", "RX Gb/s", "UTILISATION", "ERRORS"));
        for (PortSample s : ports.values()) {
            sb.append(String.format(row,
                    s.node(), s.device() + "/" + s.port(), s.source(), s.state() == null ? "?" : s.state(),
                    gbits(s.txBytesPerSec()), gbits(s.rxBytesPerSec()), bar(s), s.errors().isEmpty() ? "" : s.errors()));
        }
        if (!jobs.isEmpty()) {
            sb.append('\n').append(String.format("%-28s %10s %10s %8s %10s %10s %s%n", "JOB", "TX Gb/s", "RX Gb/s",
                    "RANKS", "HOST Gb/s", "RDMA SHARE", ""));
            for (JobBandwidth b : jobs.values()) {
                sb.append(String.format("%-28s %10s %10s %8s %10s %10s %s%n", b.namespace() + "/" + b.job(),
                        gbits(b.txBytesPerSec()), gbits(b.rxBytesPerSec()), b.ranksReporting() + "/" + b.ranksExpected(),
                        gbits(b.hostBytesPerSec()), b.rdmaShare() == null ? "-"
                                : String.format("%.0f%%", 100 * b.rdmaShare()),
                        b.estimated() ? "(estimated: shared NIC)" : ""));
            }
        }
        if (!alerts.isEmpty()) {
            sb.append('\n').append("ALERTS (newest first)").append('\n');
            for (Alert a : alerts) {
                sb.append(String.format("  %-8s %-16s %s%n", a.status(), a.type(), a.summary()));
            }
        }
        return sb.toString();
    }

    private static String gbits(Double bytesPerSec) {
        return bytesPerSec == null ? "-" : String.format("%.2f", bytesPerSec * 8 / 1e9);
    }

    private static String bar(PortSample s) {
        if (s.rateBytesPerSec() == null || s.rateBytesPerSec() == 0 || s.txBytesPerSec() == null) {
            return "";
        }
        double u = Math.min(1.0, Math.max(s.txBytesPerSec(), s.rxBytesPerSec() == null ? 0 : s.rxBytesPerSec())
                / s.rateBytesPerSec());
        int filled = (int) Math.round(u * 8);
        return "#".repeat(filled) + ".".repeat(8 - filled) + String.format("%3.0f%%", u * 100);
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
    }
}
