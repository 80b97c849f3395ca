package io.rdmamon.collector.sysfs;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.testing.Ttar;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * The reader against the public fixtures of prometheus/procfs and node_exporter, with the values their own parsers
 * computed from the same files (see fixtures/README: ../shared/fixtures/sysfs/README.md).
 */
class SysfsRdmaReaderTest {
    @TempDir
    Path tmp;

    private final ReadProblems problems = new ReadProblems(new SimpleMeterRegistry());

    private SysfsRdmaReader procfs() {
        return new SysfsRdmaReader(Ttar.unpackResource("/fixtures/procfs-infiniband.ttar", tmp).resolve("fixtures/sys"),
                new SysfsFiles(problems));
    }

    private SysfsRdmaReader nodeExporter() {
        return new SysfsRdmaReader(Ttar.unpackResource("/fixtures/node-exporter-infiniband.ttar", tmp).resolve("sys"),
                new SysfsFiles(problems));
    }

    @ParameterizedTest(name = "{0}/{1}")
    @CsvSource({
            "hfi1_0, 1, 1380366808104, 1094233306172, 12500000000",
            "mlx4_0, 1, 8884894436, 106036453180, 5000000000",
            "mlx4_0, 2, 9841747136, 106161427560, 5000000000",
            "mlx5_0, 1, 72505381512, 11523046035392, 3125000000"})
    void shouldGiveByteTotalsInOctetsWhenDataCountersCountFourOctetWords(String device, int port, long rxBytes,
                                                                          long txBytes, long rateBytesPerSec) {
        PortReading reading = procfs().readDevice(device).port(port);

        assertThat(TrafficCounter.RX_BYTES.total(reading)).isEqualTo(rxBytes);
        assertThat(TrafficCounter.TX_BYTES.total(reading)).isEqualTo(txBytes);
        assertThat(reading.rateBytesPerSec()).isEqualTo(rateBytesPerSec);
    }

    @Test
    void shouldListEveryDeviceAndPortWhenReadingTheProcfsTree() {
        SysfsRdmaReader reader = procfs();

        assertThat(reader.devices()).containsExactly("hfi1_0", "mlx4_0", "mlx5_0");
        assertThat(reader.readDevice("mlx4_0").ports()).extracting(PortReading::port).containsExactly(1, 2);
        assertThat(reader.readDevice("mlx4_0").port(1).counter(CounterFolder.COUNTERS, "port_xmit_wait"))
                .isEqualTo(3599L);
        assertThat(reader.readDevice("mlx4_0").port(2).counter(CounterFolder.COUNTERS, "port_xmit_wait"))
                .isEqualTo(3846L);
    }

    @Test
    void shouldParseTheNumberAndKeepTheTextWhenPhysStateReadsActive() {
        SysfsRdmaReader reader = procfs();
        PortReading mlx5 = reader.readDevice("mlx5_0").port(1);
        PortReading hfi1 = reader.readDevice("hfi1_0").port(1);

        assertThat(mlx5.physState()).isEqualTo(new PortState(4, "ACTIVE"));
        assertThat(mlx5.state()).isEqualTo(new PortState(4, "ACTIVE"));
        assertThat(hfi1.state()).isEqualTo(new PortState(4, "ACTIVE"));
        assertThat(hfi1.physState()).isEqualTo(new PortState(5, "LinkUp"));
        assertThat(mlx5.rateText()).isEqualTo("25 Gb/sec (1X EDR)");
    }

    @Test
    void shouldTrimWhenFilesLackTheNewlineOrCarryATrailingBlankLine() {
        SysfsRdmaReader reader = procfs();

        assertThat(reader.readDevice("mlx4_0").port(2).linkLayer()).isEqualTo("InfiniBand");
        assertThat(reader.readDevice("mlx5_0").nodeGuid()).isEqualTo("0a7f:bc12:45ef:d23b");
    }

    @Test
    void shouldLeaveIdentityUnknownWhenTheDriverHasNoSuchFile() {
        DeviceReading hfi1 = procfs().readDevice("hfi1_0");

        assertThat(hfi1.hcaType()).isNull();
        assertThat(hfi1.nodeGuid()).isNull();
        assertThat(hfi1.fwVer()).isEqualTo("1.27.0");
        assertThat(hfi1.boardId()).startsWith("HPE 100Gb 1-port OP101");
        assertThat(problems.errorCount("hfi1_0")).isZero();
    }

    @Test
    void shouldReadMlx5HwCountersAndKeepLifespanApartWhenPresent() {
        PortReading mlx5 = procfs().readDevice("mlx5_0").port(1);

        Map<String, Long> nonZero = Map.ofEntries(entry("duplicate_request", 41L),
                entry("local_ack_timeout_err", 131L), entry("out_of_sequence", 1L), entry("packet_seq_err", 1L),
                entry("req_cqe_error", 3481L), entry("req_cqe_flush_error", 80L), entry("resp_cqe_error", 8109L),
                entry("resp_cqe_flush_error", 4708L), entry("roce_adp_retrans", 99L),
                entry("roce_adp_retrans_to", 4L), entry("roce_slow_restart_cnps", 131L),
                entry("rx_read_requests", 175528982L), entry("rx_write_requests", 742114L));
        assertThat(mlx5.hwCounters()).containsAllEntriesOf(nonZero).hasSize(24);
        mlx5.hwCounters().forEach((name, value) -> {
            if (!nonZero.containsKey(name)) {
                assertThat(value).as(name).isZero();
            }
        });
        assertThat(mlx5.hwLifespanMs()).isEqualTo(10L);
        assertThat(mlx5.hwCounters()).doesNotContainKey("lifespan");
    }

    @Test
    void shouldGiveNoCounterValueButRealStateWhenEveryCounterReadsNoPma() {
        PortReading i40iw = nodeExporter().readDevice("i40iw0").port(1);

        assertThat(i40iw.counters()).isEmpty();
        assertThat(TrafficCounter.TX_BYTES.total(i40iw)).isNull();
        assertThat(i40iw.state()).isEqualTo(new PortState(4, "ACTIVE"));
        assertThat(i40iw.physState()).isEqualTo(new PortState(5, "LinkUp"));
        assertThat(i40iw.rateBytesPerSec()).isEqualTo(1_250_000_000L);
        assertThat(problems.errorCount("i40iw0")).as("N/A is the driver's answer, not a read error").isZero();
    }

    @Test
    void shouldReportSaturatedXmitWaitAsUnusableWhenItIsAllOnes() {
        PortReading mlx4 = nodeExporter().readDevice("mlx4_0").port(1);

        long xmitWait = mlx4.counter(CounterFolder.COUNTERS, "port_xmit_wait");
        assertThat(xmitWait).isEqualTo(4294967295L);
        assertThat(CounterFolder.COUNTERS.isSaturated("port_xmit_wait", xmitWait)).isTrue();
        assertThat(CounterFolder.COUNTERS.isSaturated("port_xmit_wait", 3599)).isFalse();
        assertThat(TrafficCounter.RX_BYTES.total(mlx4)).isEqualTo(18527668L);
        assertThat(TrafficCounter.TX_BYTES.total(mlx4)).isEqualTo(14933760L);
    }

    @Test
    void shouldLeaveAbsentErrorCountersUnknownNotZeroWhenTheirFilesAreMissing() {
        PortReading port2 = nodeExporter().readDevice("mlx4_0").port(2);

        assertThat(port2.counters()).doesNotContainKeys("symbol_error", "port_rcv_errors", "port_xmit_discards",
                "port_xmit_wait", "port_rcv_constraint_errors", "port_xmit_packets");
        assertThat(port2.counters()).containsEntry("link_downed", 0L).containsEntry("port_rcv_data", 0L);
        assertThat(TrafficCounter.RX_BYTES.total(port2)).as("64-bit counters_ext preferred").isEqualTo(18527668L);
        assertThat(TrafficCounter.TX_PACKETS.total(port2)).isEqualTo(0L);
    }
}
