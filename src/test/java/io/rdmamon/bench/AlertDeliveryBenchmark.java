package io.rdmamon.bench;

import io.rdmamon.alerts.AlertFixtures;
import io.rdmamon.model.Alert;
import io.rdmamon.testing.LocalAlertmanager;
import io.rdmamon.testing.SharedKafka;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * CPU and memory of {@code rdmamon alerts} in an alert storm: the delivery runs in a JVM of its own and posts to a
 * real Alertmanager (Debian's, on loopback) what the in-JVM broker holds: {@code incidents} LINK_DOWN incidents
 * firing at once (8,000 by default: every NIC of 1,000 nodes), then all of them resolved. Firing incidents are kept
 * and re-posted every {@code alerts.resend.interval.ms}, so memory grows with them. Not part of the test suite;
 * run it with
 *
 * <pre>mvn -q -B test -Dtest=AlertDeliveryBenchmark -Dincidents=8000</pre>
 *
 * <p>and read the figures in {@code target/surefire-reports/io.rdmamon.bench.AlertDeliveryBenchmark-output.txt}.
 */
class AlertDeliveryBenchmark {
    @TempDir
    Path work;

    @Test
    void alertStorm() throws Exception {
        int incidents = Integer.getInteger("incidents", 8000);
        String heap = System.getProperty("heap", "384m");
        String bootstrap = SharedKafka.bootstrapServers();
        String topic = SharedKafka.uniqueTopic("alerts-bench");
        String deadLetters = SharedKafka.uniqueTopic("dlq-alerts-bench");
        SharedKafka.createTopics(bootstrap, 6, topic, deadLetters);

        long now = System.currentTimeMillis();
        List<Alert> firing = new ArrayList<>();
        for (int i = 0; i < incidents; i++) {
            String node = "gpu-node-" + i / 8;
            String device = "erdma_" + i % 8;
            firing.add(new Alert(Alert.VERSION, "bench-" + i, Alert.LINK_DOWN, Alert.FIRING, "critical",
                    "llm-pretrain-" + i / 64, "train", node, device, 1, now, now + 3_000, null,
                    device + "/1 on " + node + ": port state DOWN (Disabled)",
                    Map.of("rail", Integer.toString(i % 8))));
        }
        try (LocalAlertmanager alertmanager = LocalAlertmanager.started()) {
            AlertFixtures.produce(topic, firing.toArray());
            List<String> args = List.of("alerts", "--set", "kafka.bootstrap.servers=" + bootstrap,
                    "--set", "alerts.alertmanager.url=" + alertmanager.url(), "--set", "alerts.topic=" + topic,
                    "--set", "alerts.dead.letter.topic=" + deadLetters, "--set", "kafka.group.id=bench-" + topic,
                    "--set", "metrics.port=-1");
            try (ChildJvm delivery = ChildJvm.start(heap, work.resolve("alerts.log"), args)) {
                long start = System.nanoTime();
                awaitReceived(alertmanager, delivery, "firing", incidents);
                double cpu = delivery.cpuSeconds();
                System.out.printf("alerts, storm: %,d firing incidents in Alertmanager %.1f s after the JVM started; "
                        + "%.1f CPU s (JVM start included)%n", incidents, seconds(start), cpu);

                // one resend interval (default 60 s) with every incident firing: the keep-alive re-posts them all
                double before = delivery.cpuSeconds();
                long received = alertmanager.receivedTotal("firing");
                long held = System.nanoTime();
                Thread.sleep(65_000);
                double heldCpu = delivery.cpuSeconds() - before;
                System.out.printf("alerts, holding %,d firing for 65 s: %,d re-posted, %.3f CPU cores on average%n",
                        incidents, alertmanager.receivedTotal("firing") - received, heldCpu / seconds(held));
                long live = delivery.liveHeapBytes();
                ChildJvm.Resident resident = delivery.residentBytes();
                System.out.printf("alerts, memory with %,d firing: live heap after full GC %,d MiB; resident %,d MiB "
                        + "(peak %,d MiB)%n", incidents, live >> 20, resident.now() >> 20, resident.peak() >> 20);

                before = delivery.cpuSeconds();
                long resolving = System.nanoTime();
                AlertFixtures.produce(topic, firing.stream().map(AlertFixtures::resolved).toArray());
                awaitReceived(alertmanager, delivery, "resolved", incidents);
                double resolveCpu = delivery.cpuSeconds() - before;
                System.out.printf("alerts, all resolved: %,d in %.1f s, %.3f CPU ms per alert; Alertmanager still "
                                + "shows %d firing%n", incidents, seconds(resolving), resolveCpu * 1000 / incidents,
                        alertmanager.alerts("alertname=\"LINK_DOWN\"").size());
                live = delivery.liveHeapBytes();
                System.out.printf("alerts, memory after: live heap after full GC %,d MiB%n", live >> 20);
            }
        }
    }

    private static void awaitReceived(LocalAlertmanager alertmanager, ChildJvm delivery, String status, long count)
            throws Exception {
        long start = System.nanoTime();
        while (alertmanager.receivedTotal(status) < count) {
            delivery.checkAlive();
            if (seconds(start) > 600) {
                throw new IllegalStateException("Alertmanager received " + alertmanager.receivedTotal(status)
                        + " of " + count + " " + status + " alerts in 10 min");
            }
            Thread.sleep(200);
        }
    }

    private static double seconds(long sinceNanos) {
        return (System.nanoTime() - sinceNanos) / 1e9;
    }
}
