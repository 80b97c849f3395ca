package io.rdmamon.collector.sysfs;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.model.PortSample;
import io.rdmamon.testing.Ttar;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Two-pass behaviour of the sysfs source on our own trees: eRDMA namings, saturation, resets, garbage, vanishing. */
class SysfsPortSourceTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path tmp;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private Path tree(String ttar) {
        return Ttar.unpackResource("/fixtures/" + ttar, tmp).resolve("sys");
    }

    private SysfsPortSource source(Path root) {
        return new SysfsPortSource(root, "node-a", null, null, registry);
    }

    private static void write(Path root, String relative, Object value) throws IOException {
        Files.writeString(root.resolve(relative), value + "\n");
    }

    private static PortSample sample(SysfsPass pass, String device, int port) {
        return pass.samples().stream().filter(s -> s.device().equals(device) && s.port() == port).findFirst()
                .orElseThrow(() -> new AssertionError("no sample for " + device + "/" + port + ": " + pass.samples()));
    }

    private double readErrors(String device) {
        var counter = registry.find(ReadProblems.READ_ERRORS_METRIC).tag("device", device).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void shouldGiveZeroIntervalAndNullRatesWhenAPortIsSampledTheFirstTime() {
        SysfsPass pass = source(tree("rdmamon-erdma.ttar")).sample(T0, 5 * SECOND);

        PortSample first = sample(pass, "erdma_0", 1);
        assertThat(first.intervalMs()).isZero();
        assertThat(first.txBytesPerSec()).isNull();
        assertThat(first.rxBytesPerSec()).isNull();
        assertThat(first.txPacketsPerSec()).isNull();
        assertThat(first.rxPacketsPerSec()).isNull();
        assertThat(first.errors()).isEmpty();
        assertThat(first.key()).isEqualTo("node-a/erdma_0/1");
        assertThat(first.ts()).isEqualTo(T0);
        assertThat(first.source()).isEqualTo("sysfs");
        assertThat(first.state()).isEqualTo("ACTIVE");
        assertThat(first.physState()).isEqualTo("LinkUp");
        assertThat(first.linkLayer()).isEqualTo("Ethernet");
        assertThat(first.rateBytesPerSec()).isEqualTo(3_125_000_000L);
    }

    @Test
    void shouldPublishUnknownsAsNullWhenReadingTheNodeExporterFixtureTwice() throws IOException {
        Path root = Ttar.unpackResource("/fixtures/node-exporter-infiniband.ttar", tmp).resolve("sys");
        SysfsPortSource source = source(root);
        source.sample(T0, 0);
        write(root, "class/infiniband/mlx4_0/ports/1/counters/port_xmit_discards", 7);
        write(root, "class/infiniband/mlx4_0/ports/1/counters_ext/port_xmit_data_64", 3733440 + 250);

        SysfsPass pass = source.sample(T0 + 1000, SECOND);

        PortSample i40iw = sample(pass, "i40iw0", 1);
        assertThat(i40iw.state()).isEqualTo("ACTIVE");
        assertThat(i40iw.rateBytesPerSec()).isEqualTo(1_250_000_000L);
        assertThat(i40iw.txBytesPerSec()).isNull();
        assertThat(i40iw.rxPacketsPerSec()).isNull();
        assertThat(i40iw.errors()).isEmpty();
        PortSample mlx4 = sample(pass, "mlx4_0", 1);
        assertThat(mlx4.txBytesPerSec()).as("counters_ext preferred, x4").isEqualTo(1000d);
        assertThat(mlx4.rxBytesPerSec()).isZero();
        assertThat(mlx4.errors()).as("port_xmit_wait stays at 2^32-1: no increment")
                .containsExactly(Map.entry("port_xmit_discards", 2L));
        assertThat(pass.devicesWithTraffic()).containsExactly("mlx4_0");
        assertThat(pass.devices()).containsExactlyInAnyOrder("i40iw0", "mlx4_0");
    }

    @Test
    void shouldTakeBytesAsBytesWhenErdmaUsesUpstreamHwCounterNames() throws IOException {
        Path root = tree("rdmamon-erdma.ttar");
        SysfsPortSource source = source(root);
        source.sample(T0, 5 * SECOND);
        String hw = "class/infiniband/erdma_0/ports/1/hw_counters/";
        write(root, hw + "tx_bytes_cnt", 9_000_000_000L + 2_500_000_000L);
        write(root, hw + "rx_bytes_cnt", 8_500_000_000L + 1_000_000_000L);
        write(root, hw + "tx_packets_cnt", 150_000 + 150_000);
        write(root, hw + "rx_packets_cnt", 140_000 + 140_000);
        write(root, hw + "tx_bps_limit_drop_cnt", 10);

        SysfsPass pass = source.sample(T0 + 500, 5 * SECOND + SECOND / 2);

        PortSample second = sample(pass, "erdma_0", 1);
        assertThat(second.intervalMs()).isEqualTo(500);
        assertThat(second.txBytesPerSec()).isEqualTo(5e9);
        assertThat(second.rxBytesPerSec()).isEqualTo(2e9);
        assertThat(second.txPacketsPerSec()).isEqualTo(300_000d);
        assertThat(second.rxPacketsPerSec()).isEqualTo(280_000d);
        assertThat(second.errors()).containsExactly(Map.entry("tx_bps_limit_drop_cnt", 3L));
        assertThat(second.errorClasses()).containsExactly(Map.entry("drop", 3L));
        assertThat(pass.devicesWithTraffic()).contains("erdma_0");
    }

    @Test
    void shouldTakeBytesAsBytesWhenErdmaUsesOutOfTreeNamesAtDeviceAndPortLevel() throws IOException {
        Path root = tree("rdmamon-erdma.ttar");
        SysfsPortSource source = source(root);
        source.sample(T0, 0);
        // the out-of-tree driver serves the same statistics at both levels: counting them twice would be a bug
        for (String dir : new String[] {"class/infiniband/erdma_1/hw_counters/",
                "class/infiniband/erdma_1/ports/1/hw_counters/"}) {
            write(root, dir + "hw_tx_bytes_cnt", 7_000_000_000L + 1_234_567_000L);
            write(root, dir + "hw_rx_bytes_cnt", 7_500_000_000L + 7_654_321_000L);
            write(root, dir + "hw_tx_packets_cnt", 160_000 + 1_000);
            write(root, dir + "hw_rx_packets_cnt", 170_000 + 2_000);
            write(root, dir + "connect_timeout_cnt", 3);
            write(root, dir + "hw_rx_bps_limit_drop_cnt", 15);
            write(root, dir + "connect_success_cnt", 50);
        }

        PortSample second = sample(source.sample(T0 + 1000, SECOND), "erdma_1", 1);

        assertThat(second.txBytesPerSec()).isEqualTo(1_234_567_000d);
        assertThat(second.rxBytesPerSec()).isEqualTo(7_654_321_000d);
        assertThat(second.txPacketsPerSec()).isEqualTo(1_000d);
        assertThat(second.rxPacketsPerSec()).isEqualTo(2_000d);
        assertThat(second.errors()).containsExactly(Map.entry("connect_timeout_cnt", 2L),
                Map.entry("hw_rx_bps_limit_drop_cnt", 4L));
        assertThat(second.errorClasses()).containsExactly(Map.entry("connection", 2L), Map.entry("drop", 4L));
    }

    @Test
    void shouldUseDeviceLevelHwCountersWhenASinglePortDeviceHasNoneAtPortLevel() throws IOException {
        Path root = tree("rdmamon-erdma.ttar");
        deleteTree(root.resolve("class/infiniband/erdma_1/ports/1/hw_counters"));
        SysfsPortSource source = source(root);
        source.sample(T0, 0);
        write(root, "class/infiniband/erdma_1/hw_counters/hw_tx_bytes_cnt", 7_000_000_000L + 4_000);

        SysfsPass pass = source.sample(T0 + 1000, SECOND);

        assertThat(sample(pass, "erdma_1", 1).txBytesPerSec()).isEqualTo(4_000d);
        assertThat(pass.devicesWithTraffic()).contains("erdma_1");
    }

    @Test
    void shouldCountDeviceLevelErrorsOnTheFirstPortOnlyWhenADeviceHasSeveralPorts() throws IOException {
        Path root = Ttar.unpackResource("/fixtures/node-exporter-infiniband.ttar", tmp).resolve("sys");
        Files.createDirectories(root.resolve("class/infiniband/mlx4_0/hw_counters"));
        write(root, "class/infiniband/mlx4_0/hw_counters/out_of_sequence", 10);
        write(root, "class/infiniband/mlx4_0/hw_counters/rx_bytes_cnt", 0);
        SysfsPortSource source = source(root);
        source.sample(T0, 0);
        write(root, "class/infiniband/mlx4_0/hw_counters/out_of_sequence", 13);
        write(root, "class/infiniband/mlx4_0/hw_counters/rx_bytes_cnt", 5_000);

        SysfsPass pass = source.sample(T0 + 1000, SECOND);

        assertThat(sample(pass, "mlx4_0", 1).errors()).containsExactly(Map.entry("out_of_sequence", 3L));
        assertThat(sample(pass, "mlx4_0", 2).errors()).isEmpty();
        assertThat(sample(pass, "mlx4_0", 2).rxBytesPerSec()).as("device traffic is no port's").isNotEqualTo(5_000d);
    }

    @Test
    void shouldGiveNoRateAndNoIncrementWhenACounterIsSaturated() throws IOException {
        Path root = tree("rdmamon-quirks.ttar");
        SysfsPortSource source = source(root);
        source.sample(T0, 0);
        String counters = "class/infiniband/mlx4_sat/ports/1/counters/";
        write(root, counters + "port_rcv_data", 1250);
        write(root, counters + "port_rcv_errors", 5);
        write(root, counters + "port_rcv_packets", 4294967295L);

        PortSample second = sample(source.sample(T0 + 1000, SECOND), "mlx4_sat", 1);

        assertThat(second.txBytesPerSec()).as("port_xmit_data stuck at 2^32-1").isNull();
        assertThat(second.txPacketsPerSec()).isNull();
        assertThat(second.rxPacketsPerSec()).as("became 2^32-1: suspect").isNull();
        assertThat(second.rxBytesPerSec()).isEqualTo(1000d);
        assertThat(second.errors()).as("symbol_error 65535, link_downed 255, local_link_integrity_errors 15,"
                + " port_xmit_wait 2^32-1 are saturated").containsExactly(Map.entry("port_rcv_errors", 2L));
    }

    @Test
    void shouldGiveNoRateForTheIntervalAndRebaselineWhenACounterWentDown() throws IOException {
        Path root = tree("rdmamon-quirks.ttar");
        SysfsPortSource source = source(root);
        String counters = "class/infiniband/mlx5_ok/ports/1/counters/";
        source.sample(T0, 0);
        write(root, counters + "port_rcv_data", 10);
        write(root, counters + "port_xmit_data", 250_000 + 500);
        write(root, counters + "port_xmit_discards", 0);

        PortSample reset = sample(source.sample(T0 + 1000, SECOND), "mlx5_ok", 1);
        write(root, counters + "port_rcv_data", 10 + 250);
        write(root, counters + "port_xmit_discards", 2);
        PortSample after = sample(source.sample(T0 + 2000, 2 * SECOND), "mlx5_ok", 1);

        assertThat(reset.rxBytesPerSec()).isNull();
        assertThat(reset.txBytesPerSec()).isEqualTo(2000d);
        assertThat(reset.errors()).isEmpty();
        assertThat(after.rxBytesPerSec()).isEqualTo(1000d);
        assertThat(after.errors()).containsExactly(Map.entry("port_xmit_discards", 2L));
    }

    @Test
    void shouldKeepOtherCountersAndDevicesWhenFilesAreMissingOrGarbage() throws IOException {
        Path root = tree("rdmamon-quirks.ttar");
        SysfsPortSource source = source(root);
        SysfsPass first = source.sample(T0, 0);
        String port = "class/infiniband/mlx5_bad/ports/1/";
        write(root, port + "counters/port_rcv_packets", 600);
        write(root, port + "counters/port_rcv_errors", 5);
        write(root, port + "hw_counters/out_of_sequence", 6);

        SysfsPass pass = source.sample(T0 + 1000, SECOND);

        PortSample bad = sample(pass, "mlx5_bad", 1);
        assertThat(bad.state()).isNull();
        assertThat(bad.physState()).isEqualTo("LinkUp");
        assertThat(bad.linkLayer()).isNull();
        assertThat(bad.rateBytesPerSec()).isNull();
        assertThat(bad.txBytesPerSec()).isNull();
        assertThat(bad.rxBytesPerSec()).isNull();
        assertThat(bad.txPacketsPerSec()).isNull();
        assertThat(bad.rxPacketsPerSec()).isEqualTo(100d);
        assertThat(bad.errors()).containsExactly(Map.entry("out_of_sequence", 2L), Map.entry("port_rcv_errors", 1L));
        PortReading raw = pass.readings().stream().filter(d -> d.device().equals("mlx5_bad")).findFirst()
                .orElseThrow().port(1);
        assertThat(raw.counters()).doesNotContainKeys("port_xmit_data", "port_rcv_data", "port_xmit_packets",
                "symbol_error");
        assertThat(raw.hwCounters()).doesNotContainKeys("out_of_buffer", "np_cnp_sent")
                .containsEntry("rp_cnp_handled", Long.parseUnsignedLong("18446744073709551614"));
        // per pass: port_xmit_data '12abc', port_rcv_data '', symbol_error '-1', out_of_buffer '0x10',
        // np_cnp_sent beyond 2^64, rate 'fast'; 'N/A (no PMA)' is not an error
        assertThat(readErrors("mlx5_bad")).isEqualTo(12);
        assertThat(readErrors("mlx5_ok")).isZero();
        assertThat(first.devices()).containsExactlyInAnyOrder("mlx4_sat", "mlx5_bad", "mlx5_ok");
        assertThat(pass.devicesWithTraffic()).containsExactlyInAnyOrder("mlx4_sat", "mlx5_ok");
        assertThat(sample(pass, "mlx5_ok", 1).linkLayer()).isEqualTo("Ethernet");
    }

    @Test
    void shouldDropStateAndStartOverWhenADeviceVanishesAndReturns() throws IOException {
        Path root = tree("rdmamon-erdma.ttar");
        SysfsPortSource source = source(root);
        Path link = root.resolve("class/infiniband/erdma_0");
        Path target = Files.readSymbolicLink(link);
        source.sample(T0, 0);

        Files.delete(link);
        SysfsPass gone = source.sample(T0 + 1000, SECOND);
        Files.createSymbolicLink(link, target);
        SysfsPass back = source.sample(T0 + 2000, 2 * SECOND);

        assertThat(gone.devices()).containsExactly("erdma_1");
        assertThat(gone.samples()).extracting(PortSample::device).containsExactly("erdma_1");
        assertThat(sample(gone, "erdma_1", 1).intervalMs()).isEqualTo(1000);
        assertThat(back.devices()).containsExactlyInAnyOrder("erdma_0", "erdma_1");
        assertThat(sample(back, "erdma_0", 1).intervalMs()).as("a returning device starts over").isZero();
        assertThat(sample(back, "erdma_0", 1).txBytesPerSec()).isNull();
    }

    @Test
    void shouldMeasureIntervalsWithTheMonotonicClockWhenTheWallClockJumps() throws IOException {
        Path root = tree("rdmamon-quirks.ttar");
        SysfsPortSource source = source(root);
        source.sample(T0, 0);
        write(root, "class/infiniband/mlx5_ok/ports/1/counters/port_xmit_data", 250_000 + 1_000);

        PortSample second = sample(source.sample(T0 - 3_600_000, 2 * SECOND), "mlx5_ok", 1);

        assertThat(second.ts()).isEqualTo(T0 - 3_600_000);
        assertThat(second.intervalMs()).isEqualTo(2000);
        assertThat(second.txBytesPerSec()).isEqualTo(2000d);
    }

    @Test
    void shouldSampleOnlyMatchingDevicesWhenIncludeAndExcludePatternsAreSet() {
        SysfsPortSource source = new SysfsPortSource(tree("rdmamon-quirks.ttar"), "node-a",
                Pattern.compile("mlx5_.*"), Pattern.compile(".*_bad"), registry);

        SysfsPass pass = source.sample(T0, 0);

        assertThat(pass.devices()).containsExactly("mlx5_ok");
        assertThat(pass.samples()).extracting(PortSample::device).containsExactly("mlx5_ok");
    }

    @Test
    void shouldFailClearlyWhenTheSysfsRootIsMissing() {
        Path missing = tmp.resolve("no-such-sys");

        assertThatThrownBy(() -> source(missing).sample(T0, 0))
                .isInstanceOf(SysfsUnavailableException.class)
                .hasMessageContaining(missing.toString());
    }

    @Test
    void shouldGiveAnEmptyPassWhenTheNodeHasNoRdmaDevice() throws IOException {
        Files.createDirectories(tmp.resolve("sys/class/net"));

        SysfsPass pass = source(tmp.resolve("sys")).sample(T0, 0);

        assertThat(pass.samples()).isEmpty();
        assertThat(pass.devices()).isEmpty();
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path path : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
