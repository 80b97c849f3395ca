package io.rdmamon.collector.host;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.collector.sysfs.ReadProblems;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.testing.Ttar;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HostIfaceSourceTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path tmp;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private Path tree() {
        return Ttar.unpackResource("/fixtures/rdmamon-host.ttar", tmp).resolve("sys");
    }

    private static void write(Path root, String iface, String counter, long value) throws IOException {
        Files.writeString(root.resolve("class/net/" + iface + "/statistics/" + counter), value + "\n");
    }

    @Test
    void shouldComputeRatesAndErrorIncrementsWhenSampledTwice() throws IOException {
        Path root = tree();
        HostIfaceSource source = new HostIfaceSource(root, "node-a", List.of("eth0"), registry);
        HostIfaceSample first = source.sample(T0, 0).get(0);
        write(root, "eth0", "tx_bytes", 2_000_000 + 3_000_000);
        write(root, "eth0", "rx_bytes", 1_000_000 + 500_000);
        write(root, "eth0", "tx_packets", 2000 + 2500);
        write(root, "eth0", "rx_packets", 1000 + 400);
        write(root, "eth0", "rx_dropped", 3 + 7);
        write(root, "eth0", "tx_errors", 1);

        HostIfaceSample second = source.sample(T0 + 500, SECOND / 2).get(0);

        assertThat(first.intervalMs()).isZero();
        assertThat(first.txBytesPerSec()).isNull();
        assertThat(first.errors()).isEmpty();
        assertThat(second.key()).isEqualTo("node-a/eth0");
        assertThat(second.intervalMs()).isEqualTo(500);
        assertThat(second.txBytesPerSec()).isEqualTo(6_000_000d);
        assertThat(second.rxBytesPerSec()).isEqualTo(1_000_000d);
        assertThat(second.txPacketsPerSec()).isEqualTo(5000d);
        assertThat(second.rxPacketsPerSec()).isEqualTo(800d);
        assertThat(second.errors()).containsExactly(Map.entry("rx_dropped", 7L), Map.entry("tx_errors", 1L));
    }

    @Test
    void shouldGiveNullRateWhenACounterWentDown() throws IOException {
        Path root = tree();
        HostIfaceSource source = new HostIfaceSource(root, "node-a", List.of("eth0"), registry);
        source.sample(T0, 0);
        write(root, "eth0", "tx_bytes", 10);
        write(root, "eth0", "rx_bytes", 1_000_000 + 100);
        write(root, "eth0", "rx_dropped", 0);

        HostIfaceSample reset = source.sample(T0 + 1000, SECOND).get(0);

        assertThat(reset.txBytesPerSec()).isNull();
        assertThat(reset.rxBytesPerSec()).isEqualTo(100d);
        assertThat(reset.errors()).isEmpty();
    }

    @Test
    void shouldLeaveTheRateUnknownAndCountTheErrorWhenAFileHoldsGarbage() throws IOException {
        Path root = tree();
        HostIfaceSource source = new HostIfaceSource(root, "node-a", List.of("eth1"), registry);
        source.sample(T0, 0);
        write(root, "eth1", "tx_bytes", 500 + 50);

        HostIfaceSample second = source.sample(T0 + 1000, SECOND).get(0);

        assertThat(second.rxBytesPerSec()).isNull();
        assertThat(second.txBytesPerSec()).isEqualTo(50d);
        assertThat(registry.get(ReadProblems.READ_ERRORS_METRIC).tag("device", "eth1").counter().count())
                .isEqualTo(2);
    }

    @Test
    void shouldSkipAnInterfaceUntilItAppearsWhenItDoesNotExist() throws IOException {
        Path root = tree();
        HostIfaceSource source = new HostIfaceSource(root, "node-a", List.of("ib0", "eth0"), registry);

        List<HostIfaceSample> before = source.sample(T0, 0);
        Files.createDirectories(root.resolve("class/net/ib0/statistics"));
        write(root, "ib0", "tx_bytes", 1);
        List<HostIfaceSample> after = source.sample(T0 + 1000, SECOND);

        assertThat(before).extracting(HostIfaceSample::iface).containsExactly("eth0");
        assertThat(after).extracting(HostIfaceSample::iface).containsExactly("ib0", "eth0");
        assertThat(after.get(0).intervalMs()).isZero();
        assertThat(after.get(1).intervalMs()).isEqualTo(1000);
    }

    @Test
    void shouldRejectAnInterfaceNameWhenItIsAPath() {
        assertThatThrownBy(() -> new HostIfaceSource(tmp, "n", List.of("../etc"), registry))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("../etc");
    }
}
