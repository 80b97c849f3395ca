package io.rdmamon.sim;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.collector.host.HostIfaceSource;
import io.rdmamon.collector.sysfs.CounterFolder;
import io.rdmamon.collector.sysfs.SysfsPass;
import io.rdmamon.collector.sysfs.SysfsPortSource;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.PortSample;
import io.rdmamon.sim.SysfsTreeWriter.DeviceKind;
import io.rdmamon.testing.TmpfsTempDir;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The simulated tree, read back by the real sources: what the simulator adds is what the collector reports. */
class SysfsTreeWriterTest {
    private static final long SECOND = 1_000_000_000L;

    @TempDir(factory = TmpfsTempDir.class)
    Path tmp;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private static PortSample sample(SysfsPass pass, String device, int port) {
        return pass.samples().stream().filter(s -> s.device().equals(device) && s.port() == port).findFirst()
                .orElseThrow(() -> new AssertionError("no sample for " + device + "/" + port));
    }

    private SysfsTreeWriter cluster() {
        SysfsTreeWriter writer = new SysfsTreeWriter(tmp.resolve("sys"));
        writer.addDevice("mlx5_0", DeviceKind.MLX5, 2, SysfsTreeWriter.ETHERNET);
        writer.addDevice("mlx5_1", DeviceKind.MLX5, 1, SysfsTreeWriter.INFINIBAND);
        writer.addDevice("erdma_0", DeviceKind.ERDMA_UPSTREAM, 1, SysfsTreeWriter.ETHERNET);
        writer.addDevice("erdma_1", DeviceKind.ERDMA_OUT_OF_TREE, 1, SysfsTreeWriter.ETHERNET);
        return writer;
    }

    @Test
    void shouldReportExactlyTheSimulatedTrafficAndErrorsWhenReadBack() {
        SysfsTreeWriter writer = cluster();
        SysfsPortSource source = new SysfsPortSource(writer.root(), "sim-1", null, null, registry);
        source.sample(0, 0);
        writer.addTraffic("mlx5_0", 2, 8_000_000, 4_000_000, 1000, 500);
        writer.addTraffic("mlx5_1", 1, 400, 800, 1, 2);
        writer.addTraffic("erdma_0", 1, 123_457, 7, 3, 1);
        writer.addTraffic("erdma_1", 1, 999_999, 1, 9, 1);
        writer.addCounter("mlx5_0", 2, "np_cnp_sent", 12);
        writer.addCounter("mlx5_0", 2, "symbol_error", 2);
        writer.addCounter("erdma_0", 1, "rx_pps_limit_drop_cnt", 4);
        writer.addCounter("erdma_1", 1, "hw_bps_limit_drop_cnt", 5);
        writer.addCounter("erdma_1", 1, "connect_reset_cnt", 1);

        SysfsPass pass = source.sample(1000, SECOND);

        PortSample mlx5 = sample(pass, "mlx5_0", 2);
        assertThat(mlx5.txBytesPerSec()).isEqualTo(8_000_000d);
        assertThat(mlx5.rxBytesPerSec()).isEqualTo(4_000_000d);
        assertThat(mlx5.txPacketsPerSec()).isEqualTo(1000d);
        assertThat(mlx5.rxPacketsPerSec()).isEqualTo(500d);
        assertThat(mlx5.errors()).containsExactly(Map.entry("np_cnp_sent", 12L), Map.entry("symbol_error", 2L));
        assertThat(mlx5.errorClasses()).containsExactly(Map.entry("congestion", 12L), Map.entry("physical", 2L));
        assertThat(mlx5.linkLayer()).isEqualTo("Ethernet");
        assertThat(sample(pass, "mlx5_0", 1).txBytesPerSec()).isZero();
        assertThat(sample(pass, "mlx5_1", 1).rxBytesPerSec()).isEqualTo(800d);
        assertThat(sample(pass, "mlx5_1", 1).linkLayer()).isEqualTo("InfiniBand");
        assertThat(sample(pass, "erdma_0", 1).txBytesPerSec()).isEqualTo(123_457d);
        assertThat(sample(pass, "erdma_0", 1).errors()).containsExactly(Map.entry("rx_pps_limit_drop_cnt", 4L));
        assertThat(sample(pass, "erdma_1", 1).txBytesPerSec()).isEqualTo(999_999d);
        assertThat(sample(pass, "erdma_1", 1).errors()).containsExactly(Map.entry("connect_reset_cnt", 1L),
                Map.entry("hw_bps_limit_drop_cnt", 5L));
        assertThat(pass.devicesWithTraffic()).containsExactlyInAnyOrder("mlx5_0", "mlx5_1", "erdma_0", "erdma_1");
        assertThat(source.problems().errorCount("mlx5_0")).isZero();
    }

    @Test
    void shouldCarryByteRemaindersWhenMlx5CountsFourOctetWords() {
        SysfsTreeWriter writer = cluster();
        SysfsPortSource source = new SysfsPortSource(writer.root(), "sim-1", null, null, registry);
        writer.addTraffic("mlx5_1", 1, 6, 0, 0, 0);
        source.sample(0, 0);
        writer.addTraffic("mlx5_1", 1, 6, 0, 0, 0);

        assertThat(sample(source.sample(1000, SECOND), "mlx5_1", 1).txBytesPerSec()).isEqualTo(8d);
    }

    @Test
    void shouldSaturateClassicErrorCountersWhenTheyPassTheirWidth() throws IOException {
        SysfsTreeWriter writer = cluster();
        writer.addCounter("mlx5_0", 1, "symbol_error", 70_000);
        writer.addCounter("mlx5_0", 1, "link_downed", 300);
        writer.addCounter("mlx5_0", 1, "out_of_buffer", 70_000);
        Path port = writer.portDir("mlx5_0", 1);

        assertThat(Files.readString(port.resolve("counters/symbol_error"))).isEqualTo("65535\n");
        assertThat(Files.readString(port.resolve("counters/link_downed"))).isEqualTo("255\n");
        assertThat(Files.readString(port.resolve("hw_counters/out_of_buffer"))).isEqualTo("70000\n");
        assertThat(CounterFolder.COUNTERS.isSaturated("symbol_error", 65535)).isTrue();
    }

    @Test
    void shouldLayTheTreeOutLikeSysfsWhenDevicesAreCreated() throws IOException {
        SysfsTreeWriter writer = cluster();
        Path infiniband = writer.root().resolve("class/infiniband");
        Path port = writer.portDir("mlx5_0", 1);

        assertThat(Files.isSymbolicLink(infiniband.resolve("mlx5_0"))).isTrue();
        assertThat(infiniband.resolve("mlx5_0").toRealPath().toString()).contains("/devices/pci0000:00/");
        assertThat(countFiles(port)).isBetween(55L, 70L);
        assertThat(Files.readString(port.resolve("state"))).isEqualTo("4: ACTIVE\n");
        assertThat(Files.readString(port.resolve("phys_state"))).isEqualTo("5: LinkUp\n");
        assertThat(Files.readString(port.resolve("counters/port_xmit_data"))).isEqualTo("0\n");
        Path erdma = infiniband.resolve("erdma_0");
        assertThat(erdma.resolve("ports/1/counters")).doesNotExist();
        assertThat(erdma.resolve("ports/1/hw_counters/tx_bytes_cnt")).exists();
        assertThat(erdma.resolve("board_id")).doesNotExist();
        assertThat(infiniband.resolve("erdma_1/hw_counters/hw_tx_bytes_cnt")).exists();
        assertThat(infiniband.resolve("erdma_1/ports/1/hw_counters/hw_tx_bytes_cnt")).exists();
        try (Stream<Path> top = Files.list(writer.root())) {
            assertThat(top.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("class", "devices", ".rdmamon-sim-tmp");
        }
    }

    @Test
    void shouldNeverShowAHalfWrittenValueWhenReadWhileWriting() {
        SysfsTreeWriter writer = cluster();
        SysfsPortSource source = new SysfsPortSource(writer.root(), "sim-1", null, null, registry);
        CompletableFuture<Void> traffic = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < 500; i++) {
                writer.addTraffic("mlx5_0", 1, 1_000_000, 2_000_000, 100, 200);
                writer.addTraffic("erdma_1", 1, 1_000_000, 2_000_000, 100, 200);
                writer.addCounter("mlx5_0", 1, "out_of_sequence", 1);
            }
        });
        long passes = 0;
        long nanos = 0;
        try {
            while (!traffic.isDone() || passes < 2) {
                nanos += SECOND;
                SysfsPass pass = source.sample(passes, nanos);
                if (passes++ > 0) {
                    for (PortSample sample : pass.samples()) {
                        assertThat(sample.txBytesPerSec()).as(sample.key()).isNotNull().isGreaterThanOrEqualTo(0);
                        assertThat(sample.rxPacketsPerSec()).as(sample.key()).isNotNull().isGreaterThanOrEqualTo(0);
                    }
                }
            }
        } finally {
            // a failed assertion must not leave the writer running into the temporary folder's clean-up
            traffic.exceptionally(e -> null).join();
        }
        traffic.join();

        for (String device : List.of("mlx5_0", "mlx5_1", "erdma_0", "erdma_1")) {
            assertThat(source.problems().errorCount(device)).as(device).isZero();
        }
    }

    @Test
    void shouldVanishAndStartOverWhenADeviceIsRemovedAndAddedAgain() {
        SysfsTreeWriter writer = cluster();
        SysfsPortSource source = new SysfsPortSource(writer.root(), "sim-1", null, null, registry);
        writer.addTraffic("erdma_0", 1, 5000, 5000, 5, 5);
        source.sample(0, 0);

        writer.removeDevice("erdma_0");
        SysfsPass gone = source.sample(1000, SECOND);
        writer.addDevice("erdma_0", DeviceKind.ERDMA_UPSTREAM, 1, SysfsTreeWriter.ETHERNET);
        SysfsPass back = source.sample(2000, 2 * SECOND);

        assertThat(gone.devices()).doesNotContain("erdma_0").contains("erdma_1");
        assertThat(sample(back, "erdma_0", 1).intervalMs()).isZero();
        assertThat(back.readings().stream().filter(d -> d.device().equals("erdma_0")).findFirst().orElseThrow()
                .port(1).hwCounters()).containsEntry("tx_bytes_cnt", 0L);
    }

    @Test
    void shouldShowLinkChangesWhenStateAndRateAreSet() {
        SysfsTreeWriter writer = cluster();
        writer.setState("mlx5_1", 1, 1, "DOWN");
        writer.setPhysState("mlx5_1", 1, 3, "Disabled");
        writer.setRate("mlx5_1", 1, "400 Gb/sec (4X NDR)");

        PortSample port = sample(new SysfsPortSource(writer.root(), "sim-1", null, null, registry).sample(0, 0),
                "mlx5_1", 1);

        assertThat(port.state()).isEqualTo("DOWN");
        assertThat(port.physState()).isEqualTo("Disabled");
        assertThat(port.rateBytesPerSec()).isEqualTo(50_000_000_000L);
    }

    @Test
    void shouldReportHostInterfaceTrafficWhenTheWriterSimulatesIt() {
        SysfsTreeWriter writer = new SysfsTreeWriter(tmp.resolve("sys"));
        writer.addInterface("eth0");
        HostIfaceSource source = new HostIfaceSource(writer.root(), "sim-1", List.of("eth0"), registry);
        source.sample(0, 0);
        writer.addInterfaceTraffic("eth0", 3_000_000, 1_000, 2_000, 10);
        writer.addInterfaceCounter("eth0", "rx_dropped", 2);

        HostIfaceSample second = source.sample(1000, SECOND).get(0);

        assertThat(second.txBytesPerSec()).isEqualTo(3_000_000d);
        assertThat(second.rxPacketsPerSec()).isEqualTo(10d);
        assertThat(second.errors()).containsExactly(Map.entry("rx_dropped", 2L));
    }

    private static long countFiles(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile).count();
        }
    }
}
