package io.rdmamon.collector.eadm;

import io.rdmamon.collector.process.SupervisedProcess;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.collector.EadmRate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The demo's simulated eadm, run as a real bash process against a small simulated sysfs tree. */
class EadmSimScriptTest {
    private static final double MIB = 1024 * 1024;
    private static final double INTERVAL_SECONDS = 0.5;

    @TempDir
    Path dir;

    private Path counters(String device) {
        return dir.resolve("sys/class/infiniband/" + device + "/ports/1/hw_counters");
    }

    /** Replaces the file in one step, as sysfs does: the script never reads a half-written value. */
    private void writeCounter(Path hw, String name, long value) throws IOException {
        Path tmp = hw.resolve("." + name + ".tmp");
        Files.writeString(tmp, value + "\n");
        Files.move(tmp, hw.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private void writeCounters(Path hw, String prefix, long txBytes, long rxBytes, long txPackets, long rxPackets)
            throws IOException {
        writeCounter(hw, prefix + "tx_bytes_cnt", txBytes);
        writeCounter(hw, prefix + "rx_bytes_cnt", rxBytes);
        writeCounter(hw, prefix + "tx_packets_cnt", txPackets);
        writeCounter(hw, prefix + "rx_packets_cnt", rxPackets);
    }

    private Process start(Path script, String... args) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(script.toString());
        builder.command().addAll(List.of(args));
        builder.environment().put(EadmSimScript.SYSFS_ENV, dir.resolve("sys").toString());
        builder.environment().put("EADM_SIM_INTERVAL", Double.toString(INTERVAL_SECONDS));
        return builder.start();
    }

    @ParameterizedTest(name = "counter prefix ''{0}''")
    @ValueSource(strings = {"hw_", ""})
    void shouldPrintRatesFromCounterDeltasWhenCountersGrow(String prefix) throws Exception {
        Path hw = Files.createDirectories(counters("erdma_0"));
        Files.writeString(hw.resolve("lifespan"), "10\n");
        writeCounters(hw, prefix, 1_000, 2_000, 10, 20);
        Process eadm = start(EadmSimScript.install(dir.resolve("bin")), "stat", "-d", "erdma_0", "-l");
        try (BufferedReader out = new BufferedReader(new InputStreamReader(eadm.getInputStream(),
                StandardCharsets.UTF_8))) {
            String idle = out.readLine();
            // right after a line the script sleeps one interval: this update lands in the next one whole
            long txDelta = (long) (400 * MIB * INTERVAL_SECONDS);
            writeCounters(hw, prefix, 1_000 + txDelta, 2_000 + txDelta / 4, 10 + 200_000, 20 + 50_000);
            String busy = out.readLine();

            assertThat(idle).isEqualTo("rx: 0.00 B/s 0 p/s; tx: 0.00 B/s 0 p/s");
            assertThat(busy).matches("rx: \\d+\\.\\d\\d MiB/s \\d+ p/s; tx: \\d+\\.\\d\\d MiB/s \\d+ p/s");
            EadmRate rate = EadmLineParser.parse("erdma_0", busy, 0L).orElseThrow();
            // the script divides by the time it measured: at least one interval, a little more on a busy machine
            assertThat(rate.txBytesPerSec()).isBetween(400 * MIB / 4, 400 * MIB * 1.001);
            assertThat(rate.rxBytesPerSec() / rate.txBytesPerSec()).isBetween(0.249, 0.251);
            assertThat(rate.txBytesPerSec() / rate.txPacketsPerSec()).isBetween(txDelta / 200_000.0 * 0.99,
                    txDelta / 200_000.0 * 1.01);
            assertThat(rate.rxPacketsPerSec() / rate.txPacketsPerSec()).isBetween(0.249, 0.251);
        } finally {
            SupervisedProcess.killTree(eadm);
            eadm.waitFor(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldExitWithMessageWhenDeviceIsMissing() throws Exception {
        Files.createDirectories(counters("erdma_0"));
        Process eadm = start(EadmSimScript.install(dir.resolve("bin")), "stat", "-d", "erdma_9", "-l");

        assertThat(eadm.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(eadm.exitValue()).isEqualTo(1);
        assertThat(new String(eadm.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
                .contains("no such device: erdma_9");
    }

    @Test
    void shouldFeedSupervisorWhenUsedAsEadmCommand() throws Exception {
        writeCounters(Files.createDirectories(counters("erdma_0")), "hw_", 0, 0, 0, 0);
        Path script = EadmSimScript.install(dir.resolve("bin"));
        EadmConfig config = new EadmConfig(Map.of(EadmConfig.COMMAND_CONFIG,
                EadmSimScript.command(script, dir.resolve("sys"))));

        try (EadmSupervisor supervisor = new EadmSupervisor(config, new SimpleMeterRegistry())) {
            supervisor.supervise(List.of("erdma_0"));

            await().atMost(Duration.ofSeconds(20)).until(() -> supervisor.latest("erdma_0").isPresent());
            assertThat(supervisor.latest("erdma_0").orElseThrow().txBytesPerSec()).isZero();
        }
    }
}
