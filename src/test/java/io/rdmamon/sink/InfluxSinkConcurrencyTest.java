package io.rdmamon.sink;

import io.rdmamon.model.PortSample;
import io.rdmamon.testing.LocalInfluxd;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Parallel writes ({@code influx.write.concurrency}) with small polls split into several requests and poison among
 * them: every point arrives, every unreadable record is dead-lettered, and the offsets end committed at the end of
 * the topic, though batches finish out of order.
 */
class InfluxSinkConcurrencyTest {
    private static final long BASE = Instant.now().minus(1, ChronoUnit.HOURS).toEpochMilli();

    @Test
    void shouldWriteAndCommitEverythingWhenSeveralWritesAreInFlight() throws Exception {
        try (SinkFixture fixture = new SinkFixture(LocalInfluxd.shared()).init()) {
            int samples = 300;
            for (int i = 0; i < samples; i++) {
                fixture.send(fixture.portTopic, "n1/mlx5_0/1", new PortSample(1, "n1", "mlx5_0", 1, BASE + i * 10L,
                        10, "sysfs", "ACTIVE", "LinkUp", "InfiniBand", 12_500_000_000L, (double) i, (double) i, null,
                        null, null, null));
                if (i % 50 == 0) {
                    fixture.sendRaw(fixture.portTopic, "poison", "not json".getBytes(StandardCharsets.UTF_8));
                }
            }
            fixture.flush();
            fixture.startSink(new SinkConfig(fixture.settings(Map.of(SinkConfig.WRITE_CONCURRENCY_CONFIG, "4",
                    SinkConfig.BATCH_MAX_POINTS_CONFIG, "3", "kafka.max.poll.records", "7"))));

            long end = samples + samples / 50;
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(fixture.committed(fixture.portTopic)).isEqualTo(end);
                assertThat(fixture.count("rdma_port", "tx_bytes_per_sec")).isEqualTo(samples);
            });
            assertThat(fixture.counter("rdmamon.sink.records.dead.lettered")).isEqualTo(samples / 50);
            assertThat(fixture.counter("rdmamon.sink.points.written")).isGreaterThanOrEqualTo(samples);
        }
    }
}
