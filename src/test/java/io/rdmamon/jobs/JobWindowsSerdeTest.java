package io.rdmamon.jobs;

import io.rdmamon.model.Json;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JobWindowsSerdeTest {
    private static final String TOPIC = "app-job-windows-changelog";
    private final JobWindowsSerde serde = new JobWindowsSerde();

    /** A running job of {@code nodes} nodes × 8 NICs with two open windows, as the processor keeps it. */
    private static JobWindows job(int nodes) {
        JobWindows w = new JobWindows();
        for (long start : new long[] {1_700_000_000_000L, 1_700_000_010_000L}) {
            TreeMap<String, PortWindow> ports = new TreeMap<>();
            TreeMap<String, HostWindow> hosts = new TreeMap<>();
            for (int n = 0; n < nodes; n++) {
                String node = "gpu-node-" + n;
                for (int d = 0; d < 8; d++) {
                    PortWindow p = new PortWindow("llama-70b", "team-a", nodes * 8, node, "mlx5_" + d, 1,
                            List.of(n * 8, n * 8 + 1), 1 + d % 2, 1.25e10 + d, 9_000 + d, 1.5e10, 9_000,
                            d == 3 ? null : 25_000_000_000L);
                    ports.put(p.portKey(), p);
                    w.newest.put(p.portKey(), start + 9_000 + d);
                }
                hosts.put(node + "/eth0", new HostWindow(1e8 + n, 9_000));
                w.instanceTypes.put(node, "ecs.ebmgn8v.48xlarge");
            }
            w.open.put(start, ports);
            w.hosts.put(start, hosts);
        }
        w.closedUntil = 1_700_000_000_000L;
        return w;
    }

    /** JobWindows has no equals: the same windows give the same JSON (every map is sorted). */
    private static String json(JobWindows w) {
        return new String(Json.toBytes(w), java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void shouldReadBackEveryWindowPortAndHost() {
        JobWindows job = job(8);
        JobWindows back = serde.deserializer().deserialize(TOPIC, serde.serializer().serialize(TOPIC, job));
        assertThat(json(back)).isEqualTo(json(job));
        assertThat(back.open.firstEntry().getValue().get("gpu-node-0/mlx5_3/1").rateBytesPerSec()).isNull();
    }

    @Test
    void shouldReadBackAnEmptyJobAndOneThatNeverClosedAWindow() {
        JobWindows empty = new JobWindows();
        JobWindows back = serde.deserializer().deserialize(TOPIC, serde.serializer().serialize(TOPIC, empty));
        assertThat(back.isEmpty()).isTrue();
        assertThat(back.closedUntil).isNull();
    }

    @Test
    void shouldReadTheJsonOfEarlierReleasesFromTheChangelog() {
        JobWindows job = job(2);
        JobWindows back = serde.deserializer().deserialize(TOPIC, Json.toBytes(job));
        assertThat(json(back)).isEqualTo(json(job));
    }

    @Test
    void shouldWriteAJobOfSixtyFourPortsInAFractionOfItsJson() {
        JobWindows job = job(8);
        byte[] binary = serde.serializer().serialize(TOPIC, job);
        // names repeated by every port are written once: the numbers are what is left
        assertThat(binary.length).isLessThan(Json.toBytes(job).length / 3);
    }

    @Test
    void shouldFailOnAnUnknownFormatATruncatedValueAndTrailingBytes() {
        byte[] bytes = serde.serializer().serialize(TOPIC, job(1));
        byte[] unknown = bytes.clone();
        unknown[0] = 9;
        assertThatThrownBy(() -> serde.deserializer().deserialize(TOPIC, unknown))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("unknown job windows format 9").hasMessageContaining(TOPIC);
        byte[] cut = Arrays.copyOf(bytes, bytes.length - 3);
        assertThatThrownBy(() -> serde.deserializer().deserialize(TOPIC, cut))
                .isInstanceOf(SerializationException.class);
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        assertThatThrownBy(() -> serde.deserializer().deserialize(TOPIC, longer))
                .isInstanceOf(SerializationException.class).hasMessageContaining("bytes left");
        assertThat(serde.serializer().serialize(TOPIC, null)).isNull();
        assertThat(serde.deserializer().deserialize(TOPIC, null)).isNull();
    }
}
