package io.rdmamon.collector.publish;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * A collector's publishing side in a JVM of its own, for {@link KafkaSampleSinkCrashTest} to kill: publishes one record
 * per port every interval through a real {@link KafkaSampleSink}, and prints {@code SAMPLED <pass>} once a pass is
 * handed to the sink, so the test knows what was sampled. With a pass count it stops by itself once Kafka has
 * acknowledged everything (a clean close); without, it runs until killed.
 *
 * <p>Arguments: bootstrap spillDir topic ports intervalMs firstPass [passes].
 */
public final class CrashingCollector {
    static final String SAMPLED = "SAMPLED ";
    static final long T0 = 1_700_000_000_000L;
    private static final String PAD = "x".repeat(400);

    private CrashingCollector() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, Object> settings = new HashMap<>();
        settings.put(PublishConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        settings.put(PublishConfig.SPILL_PATH_CONFIG, args[1]);
        settings.put("kafka.max.block.ms", "5000");
        String topic = args[2];
        int ports = Integer.parseInt(args[3]);
        long intervalMs = Long.parseLong(args[4]);
        int firstPass = Integer.parseInt(args[5]);
        int passes = args.length > 6 ? Integer.parseInt(args[6]) : Integer.MAX_VALUE;
        try (KafkaSampleSink sink = new KafkaSampleSink(new PublishConfig(settings), new SimpleMeterRegistry())) {
            long next = System.currentTimeMillis();
            for (int pass = firstPass; pass - firstPass < passes; pass++) {
                for (int port = 0; port < ports; port++) {
                    sink.publish(topic, key(port), T0 + pass * intervalMs, value(port, pass));
                }
                System.out.println(SAMPLED + pass);
                System.out.flush();
                next += intervalMs;
                Thread.sleep(Math.max(0, next - System.currentTimeMillis()));
            }
            long deadline = System.currentTimeMillis() + 60_000;
            while (sink.bufferedRecords() > 0 && System.currentTimeMillis() < deadline) {
                Thread.sleep(50);
            }
        }
    }

    static String key(int port) {
        return "n1/mlx5_" + port + "/1";
    }

    static byte[] value(int port, int pass) {
        return ("{\"node\":\"n1\",\"port\":" + port + ",\"pass\":" + pass + ",\"pad\":\"" + PAD + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    static int passOf(String json) {
        int at = json.indexOf("\"pass\":") + 7;
        return Integer.parseInt(json.substring(at, json.indexOf(',', at)));
    }
}
