package io.rdmamon.sink;

import org.influxdb.dto.Point;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static io.rdmamon.influx.Schema.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sink renders line protocol itself instead of through influxdb-java's {@code Point}: the lines must stay byte for
 * byte the same, floats included (plain notation, shortest digits), whatever their magnitude.
 */
class SchemaPointTest {
    @Test
    void shouldRenderWhatInfluxdbJavaRendersWhenGivenFloatsOfEveryMagnitudeAndAwkwardText() {
        SplittableRandom random = new SplittableRandom(36);
        for (int i = 0; i < 20_000; i++) {
            double value = switch (i % 4) {
                case 0 -> random.nextDouble() * Math.pow(10, random.nextInt(-12, 22));
                case 1 -> Math.floor(random.nextDouble() * Math.pow(10, random.nextInt(0, 20)));
                case 2 -> -random.nextDouble() * Math.pow(10, random.nextInt(-5, 12));
                default -> Double.longBitsToDouble(random.nextLong()) % 1e30;
            };
            if (!Double.isFinite(value)) {
                continue;
            }
            String node = i % 7 == 0 ? "gpu 07,a=b" : "gpu-" + i;
            String state = i % 5 == 0 ? "say \"hi\" \\ ok" : "ACTIVE";
            long ts = 1_767_225_600_000L + i;

            PointLines lines = new PointLines();
            SchemaPoint.of(RDMA_PORT, ts).tag(NODE, node).tag(DEVICE, "mlx5_0").tag(PORT, 1)
                    .field(TX_BYTES_PER_SEC, value).field(STATE, state).field(ACTIVE, 1L).addTo(lines);
            String expected = Point.measurement("rdma_port").time(ts, TimeUnit.MILLISECONDS)
                    .tag(NODE, node).tag(DEVICE, "mlx5_0").tag(PORT, "1")
                    .addField(TX_BYTES_PER_SEC, value).addField(STATE, state).addField(ACTIVE, 1L)
                    .build().lineProtocol(TimeUnit.MILLISECONDS);

            assertThat(lines.lines()).as("value %s", value).containsExactly(expected);
        }
    }
}
