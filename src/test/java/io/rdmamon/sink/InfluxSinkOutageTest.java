package io.rdmamon.sink;

import io.rdmamon.influx.InfluxdProcess;
import io.rdmamon.model.PortSample;
import io.rdmamon.testing.LocalInfluxd;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * InfluxDB goes away mid-stream while the collectors keep publishing: the sink pauses, keeps its offsets where the
 * last written batch ended, retries with backoff, and once the server is back every point arrives.
 */
class InfluxSinkOutageTest {
    private static final long BASE = Instant.now().minus(1, ChronoUnit.HOURS).toEpochMilli();

    @Test
    void shouldWriteEveryPointAndCommitOnlyWrittenOffsetsWhenInfluxdStopsMidStream() throws Exception {
        try (InfluxdProcess influxd = LocalInfluxd.start(false);
             SinkFixture fixture = new SinkFixture(influxd).init().startSink()) {
            AtomicLong produced = new AtomicLong();
            AtomicBoolean producing = new AtomicBoolean(true);
            Thread producer = new Thread(() -> {
                while (producing.get()) {
                    long i = produced.get();
                    fixture.send(fixture.portTopic, "n1/mlx5_0/1", sample(i));
                    produced.incrementAndGet();
                    if (i % 20 == 0) {
                        fixture.flush();
                        sleep(20);
                    }
                }
                fixture.flush();
            }, "outage-test-producer");
            producer.start();

            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.count("rdma_port", "tx_bytes_per_sec") >= 200);
            for (int i = 0; i < 5; i++) {
                long committed = fixture.committed(fixture.portTopic);
                assertThat(fixture.count("rdma_port", "tx_bytes_per_sec"))
                        .as("points written before their offsets are committed").isGreaterThanOrEqualTo(committed);
            }

            influxd.stop();
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.counter("rdmamon.sink.retries") >= 3);
            long committedDuringOutage = fixture.committed(fixture.portTopic);
            double retries = fixture.counter("rdmamon.sink.retries");
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.counter("rdmamon.sink.retries") >= retries + 2);
            assertThat(fixture.committed(fixture.portTopic)).as("no commit while InfluxDB is down")
                    .isEqualTo(committedDuringOutage);
            assertThat(produced.get()).as("records kept coming during the outage")
                    .isGreaterThan(committedDuringOutage + 100);

            influxd.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.count("rdma_port", "tx_bytes_per_sec")
                    > committedDuringOutage + 100);
            producing.set(false);
            producer.join();
            long total = produced.get();

            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(fixture.count("rdma_port", "tx_bytes_per_sec")).isEqualTo(total);
                assertThat(fixture.committed(fixture.portTopic)).isEqualTo(total);
            });
            assertThat(fixture.counter("rdmamon.sink.points.rejected")).isZero();
        }
    }

    private static PortSample sample(long i) {
        return new PortSample(1, "n1", "mlx5_0", 1, BASE + i * 10, 10, "sysfs", "ACTIVE", "LinkUp", "InfiniBand",
                12_500_000_000L, (double) i, (double) i, null, null, null, null);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
