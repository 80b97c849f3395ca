package io.rdmamon.collector.sysfs;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.model.PortSample;
import io.rdmamon.sim.SysfsTreeWriter;
import io.rdmamon.sim.SysfsTreeWriter.DeviceKind;
import io.rdmamon.testing.TmpfsTempDir;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The collector's production setting: files held open, folder listings and static attributes kept for a rescan
 * interval. What changes must still be seen: a device that goes and comes back, a link that comes back at another
 * rate, a file that goes missing, a new counter file (at the latest after the interval).
 */
class SysfsRescanTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long RESCAN_MS = 60_000;

    @TempDir(factory = TmpfsTempDir.class)
    Path tmp;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private SysfsTreeWriter node() {
        SysfsTreeWriter writer = SysfsTreeWriter.inPlace(tmp.resolve("sys"));
        writer.addDevice("mlx5_0", DeviceKind.MLX5, 1, SysfsTreeWriter.ETHERNET);
        writer.addDevice("erdma_0", DeviceKind.ERDMA_UPSTREAM, 1, SysfsTreeWriter.ETHERNET);
        return writer;
    }

    private SysfsPortSource source(SysfsTreeWriter writer, boolean keepOpen) {
        return new SysfsPortSource(writer.root(), "node-a", null, null, registry, keepOpen, RESCAN_MS);
    }

    private static PortSample sample(SysfsPass pass, String device) {
        return pass.samples().stream().filter(s -> s.device().equals(device)).findFirst()
                .orElseThrow(() -> new AssertionError("no sample for " + device));
    }

    private static DeviceReading reading(SysfsPass pass, String device) {
        return pass.readings().stream().filter(d -> d.device().equals(device)).findFirst()
                .orElseThrow(() -> new AssertionError("no reading of " + device));
    }

    @Test
    void shouldReadInPlaceChangesThroughHeldFilesBetweenRescans() {
        SysfsTreeWriter writer = node();
        SysfsPortSource source = source(writer, true);
        source.sample(0, 0);
        writer.addTraffic("mlx5_0", 1, 4_000_000, 2_000_000, 100, 50);

        PortSample port = sample(source.sample(1000, SECOND), "mlx5_0");

        assertThat(port.txBytesPerSec()).isEqualTo(4_000_000.0);
        assertThat(port.rxBytesPerSec()).isEqualTo(2_000_000.0);
    }

    @Test
    void shouldReopenItsFilesWhenADeviceDisappearsAndComesBackWhileTheyAreHeldOpen() {
        SysfsTreeWriter writer = node();
        SysfsPortSource source = source(writer, true);
        writer.addTraffic("erdma_0", 1, 5000, 5000, 5, 5);
        source.sample(0, 0);

        writer.removeDevice("erdma_0");
        SysfsPass gone = source.sample(1000, SECOND);
        writer.addDevice("erdma_0", DeviceKind.ERDMA_UPSTREAM, 1, SysfsTreeWriter.ETHERNET);
        writer.addTraffic("erdma_0", 1, 300, 0, 1, 0);
        SysfsPass back = source.sample(2000, 2 * SECOND);

        assertThat(gone.devices()).containsExactly("mlx5_0");
        // the new files, not the old ones' descriptors: 300, not 5300
        assertThat(reading(back, "erdma_0").port(1).hwCounters()).containsEntry("tx_bytes_cnt", 300L);
        assertThat(sample(back, "erdma_0").intervalMs()).isZero();
    }

    @Test
    void shouldReadTheRateAgainAtOnceWhenAPortStateChanges() {
        SysfsTreeWriter writer = node();
        SysfsPortSource source = source(writer, true);
        source.sample(0, 0);

        writer.setState("mlx5_0", 1, 1, "DOWN");
        writer.setRate("mlx5_0", 1, "400 Gb/sec (4X NDR)");
        PortSample down = sample(source.sample(1000, SECOND), "mlx5_0");

        assertThat(down.state()).isEqualTo("DOWN");
        assertThat(down.rateBytesPerSec()).isEqualTo(50_000_000_000L);
    }

    @Test
    void shouldSeeANewCounterFileAtTheLatestAfterTheRescanInterval() throws Exception {
        SysfsTreeWriter writer = node();
        SysfsPortSource source = source(writer, true);
        source.sample(0, 0);
        Files.writeString(writer.portDir("mlx5_0", 1).resolve("hw_counters/new_cnt"), "7\n");

        SysfsPass before = source.sample(1000, SECOND);
        SysfsPass after = source.sample(61_000, 61 * SECOND);

        assertThat(reading(before, "mlx5_0").port(1).hwCounters()).doesNotContainKey("new_cnt");
        assertThat(reading(after, "mlx5_0").port(1).hwCounters()).containsEntry("new_cnt", 7L);
    }

    @Test
    void shouldListTheFoldersAgainOnTheNextPassWhenAFileGoesMissing() throws Exception {
        SysfsTreeWriter writer = node();
        SysfsPortSource source = source(writer, false);
        source.sample(0, 0);
        Path hw = writer.portDir("erdma_0", 1).resolve("hw_counters");
        Files.delete(hw.resolve("tx_bytes_cnt"));

        SysfsPass missing = source.sample(1000, SECOND);
        // a driver reload brings the file back, and one more
        Files.writeString(hw.resolve("tx_bytes_cnt"), "10\n");
        Files.writeString(hw.resolve("new_cnt"), "3\n");
        SysfsPass reloaded = source.sample(2000, 2 * SECOND);

        assertThat(reading(missing, "erdma_0").port(1).hwCounters()).doesNotContainKey("tx_bytes_cnt");
        assertThat(reading(reloaded, "erdma_0").port(1).hwCounters())
                .containsEntry("tx_bytes_cnt", 10L).containsEntry("new_cnt", 3L);
        assertThat(source.problems().errorCount("erdma_0")).isZero();
    }
}
