package io.rdmamon.sink;

import org.influxdb.dto.Point;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static io.rdmamon.influx.Schema.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Request bodies are rendered as bytes, not as text encoded afterwards: they must be the UTF-8 bytes of influxdb-java's
 * lines, whatever the text holds (accents, emoji, a lone surrogate, the characters line protocol escapes), split into
 * bodies of at most the configured number of points.
 */
class WriteBodiesTest {
    private static final char[] AWKWARD = {'a', 'Z', '7', ' ', ',', '=', '"', '\\', '-', 'é', 'ß', '中', '\uD83D',
            '\uDE00', '\u0080', '\u07FF', '\uFFFF'};

    @Test
    void shouldHoldTheUtf8BytesOfInfluxdbJavasLinesWhenTextIsNotAscii() {
        SplittableRandom random = new SplittableRandom(36);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        WriteBodies bodies = new WriteBodies(7, new Utf8Buffer(16));
        PointLines lines = new PointLines();
        int points = 2_000;
        for (int i = 0; i < points; i++) {
            String node = text(random).replace('\\', '/') + "x"; // tags: no backslash, no trailing space
            String state = text(random);
            long ts = 1_767_225_600_000L + i;
            double value = random.nextDouble() * 1e6;
            lines.clear();
            SchemaPoint.of(RDMA_PORT, ts).tag(NODE, node).tag(DEVICE, "mlx5_0").tag(PORT, 1)
                    .field(TX_BYTES_PER_SEC, value).field(STATE, state).field(ACTIVE, -(long) i).addTo(lines);
            bodies.add(lines);
            String line = Point.measurement("rdma_port").time(ts, TimeUnit.MILLISECONDS)
                    .tag(NODE, node).tag(DEVICE, "mlx5_0").tag(PORT, "1")
                    .addField(TX_BYTES_PER_SEC, value).addField(STATE, state).addField(ACTIVE, -(long) i)
                    .build().lineProtocol(TimeUnit.MILLISECONDS);
            expected.writeBytes((line + "\n").getBytes(StandardCharsets.UTF_8));
        }

        List<WriteBody> written = bodies.finish();
        ByteArrayOutputStream actual = new ByteArrayOutputStream();
        written.forEach(body -> actual.writeBytes(body.lines()));
        assertThat(actual.toByteArray()).isEqualTo(expected.toByteArray());
        assertThat(written).hasSize((points + 6) / 7).allMatch(body -> body.points() <= 7);
    }

    /** 1 to 12 characters, the first an x, most of them ones line protocol or UTF-8 treat specially; never blank. */
    private static String text(SplittableRandom random) {
        StringBuilder text = new StringBuilder("x");
        for (int n = random.nextInt(12); n > 0; n--) {
            text.append(AWKWARD[random.nextInt(AWKWARD.length)]);
        }
        return text.toString();
    }
}
