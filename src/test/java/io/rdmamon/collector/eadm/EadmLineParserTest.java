package io.rdmamon.collector.eadm;

import io.rdmamon.collector.EadmRate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Optional;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class EadmLineParserTest {
    private static final double KIB = 1024;
    private static final double MIB = 1024 * KIB;
    private static final double GIB = 1024 * MIB;
    private static final double TIB = 1024 * GIB;

    /** line → rx B/s, rx p/s, tx B/s, tx p/s (null: packets unknown). */
    static Stream<Arguments> goodLines() {
        return Stream.of(
                row("rx: 914.89 MiB/s 150423 p/s; tx: 914.66 MiB/s 147128 p/s",
                        914.89 * MIB, 150423.0, 914.66 * MIB, 147128.0),
                row("rx: 0.00 B/s 0 p/s; tx: 0.00 B/s 0 p/s", 0, 0.0, 0, 0.0),
                row("rx: 512 B/s 3 p/s; tx: 1.5 KiB/s 4 p/s", 512, 3.0, 1.5 * KIB, 4.0),
                row("rx: 2.25 GiB/s 1 p/s; tx: 1 TiB/s 2 p/s", 2.25 * GIB, 1.0, TIB, 2.0),
                row("tx: 1.5 GiB/s 10 p/s; rx: 2 KiB/s 3 p/s", 2 * KIB, 3.0, 1.5 * GIB, 10.0),
                row("RX:  12 b/s   7 P/S ;  TX:3 mib/S 0 p/s", 12, 7.0, 3 * MIB, 0.0),
                row("rx: 1 KB/s 1 p/s; tx: 1 MB/s 2 p/s", 1_000, 1.0, 1_000_000, 2.0),
                row("rx: 1 GB/s 1 p/s; tx: 2 TB/s 2 p/s", 1e9, 1.0, 2e12, 2.0),
                row("rx: 5 MiB/s; tx: 6 MiB/s", 5 * MIB, null, 6 * MIB, null),
                row("rx: 5 MiB/s 9 p/s; tx: 6 MiB/s", 5 * MIB, 9.0, 6 * MIB, null),
                row("erdma_0  rx 1 B/s, 2 pps  tx 3 B/s (4 pkt/s)", 1, 2.0, 3, 4.0),
                row("\u001B[2K\u001B[1Grx: 1 KiB/s 2 p/s; tx: 3 KiB/s 4 p/s", KIB, 2.0, 3 * KIB, 4.0),
                row("  rx: 7 Bytes/sec 8 packets/sec; tx: 9 bytes/s 10 pkts/s  ", 7, 8.0, 9, 10.0),
                // a second line glued onto the first: the first figure of each direction counts
                row("rx: 1 MiB/s 1 p/s; tx: 2 MiB/s 2 p/s rx: 3 MiB/s 3 p/s; tx: 4 MiB/s 4 p/s",
                        MIB, 1.0, 2 * MIB, 2.0));
    }

    private static Arguments row(String line, double rxBytes, Double rxPackets, double txBytes, Double txPackets) {
        return Arguments.of(line, rxBytes, rxPackets, txBytes, txPackets);
    }

    @ParameterizedTest
    @MethodSource("goodLines")
    void shouldReadBothDirectionsWhenLineHoldsRates(String line, double rxBytes, Double rxPackets, double txBytes,
                                                    Double txPackets) {
        EadmRate rate = EadmLineParser.parse("erdma_0", line, 42L).orElseThrow();

        assertThat(rate.rxBytesPerSec()).isCloseTo(rxBytes, within(1e-6));
        assertThat(rate.txBytesPerSec()).isCloseTo(txBytes, within(1e-6));
        assertThat(rate.rxPacketsPerSec()).isEqualTo(rxPackets);
        assertThat(rate.txPacketsPerSec()).isEqualTo(txPackets);
        assertThat(rate.device()).isEqualTo("erdma_0");
        assertThat(rate.readAtNanos()).isEqualTo(42L);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "",
            "   ",
            "hello world",
            "Query kernel driver version: 0.2.38",
            "hw_rx_bytes_cnt : 123",
            "rx: 914.89 MiB/s 150423 p/s",
            "tx: 914.66 MiB/s 147128 p/s",
            "rx: 1,234.5 MiB/s 1 p/s; tx: 1 MiB/s 1 p/s",
            "rx: -5 MiB/s 1 p/s; tx: 1 MiB/s 1 p/s",
            "rx: 5 Mbit/s 1 p/s; tx: 1 MiB/s 1 p/s",
            "rx: 5 XiB/s 1 p/s; tx: 1 MiB/s 1 p/s",
            "rx: 5 MiB 1 p/s; tx: 1 MiB 1 p/s",
            "rx: NaN MiB/s 1 p/s; tx: 1 MiB/s 1 p/s",
            "rx: MiB/s 1 p/s; tx: 1 MiB/s 1 p/s",
            "eadm: device erdma_9 not found"})
    void shouldGiveNoRateWhenLineIsGarbage(String line) {
        assertThat(EadmLineParser.parse("erdma_0", line, 0L)).isEmpty();
    }

    @Test
    void shouldGiveNoRateWhenNumberOverflowsDouble() {
        String huge = "9".repeat(400);
        Optional<EadmRate> rate = EadmLineParser.parse("erdma_0",
                "rx: " + huge + " MiB/s 1 p/s; tx: 1 MiB/s 1 p/s", 0L);

        assertThat(rate).isEmpty();
    }
}
