package io.rdmamon.collector;

import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.Json;
import io.rdmamon.model.PortSample;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The collector's encoder (jackson-core's generator alone) writes the very bytes Jackson's mapper writes: the record
 * schemas are public contracts.
 */
class SampleJsonTest {
    private final SampleJson json = new SampleJson();

    @Test
    void aTypicalPortRecordIsJacksonsBytes() {
        PortSample s = new PortSample(1, "gpu-node-7", "mlx5_0", 1, 1_700_000_000_123L, 1000, "sysfs", "ACTIVE",
                "LinkUp", "Ethernet", 12_500_000_000L, 1.2345678912E9, 0.0, 250_000.0, 1.0E-4,
                new TreeMap<>(Map.of("np_cnp_sent", 2L, "symbol_error", 1L)),
                new TreeMap<>(Map.of("congestion", 2L, "physical", 1L)));
        assertSameAsJackson(s);
    }

    @Test
    void nullsAndEmptyMapsAsJackson() {
        // first sample: no interval, no rates, no errors; unknown state, rate and link layer
        assertSameAsJackson(new PortSample(1, "n", "erdma_0", 1, 0, 0, "eadm", null, null, null, null, null, null,
                null, null, Map.of(), Map.of()));
        assertSameAsJackson(new HostIfaceSample(1, "n", "eth0", 5, 0, null, null, null, null, Map.of()));
    }

    @Test
    void stringsNeedingEscapesAsJackson() {
        // quote, backslash, controls, 2- and 3-byte UTF-8, a surrogate pair, halves in the wrong order
        String odd = "q\"b\\s/\b\t\n\f\r\u0000\u001f\u007f é ß \u07ff \u0800 中 \uffff"
                + " \uD83D\uDE00 \uDE00\uD83D end";
        assertSameAsJackson(new PortSample(1, odd, odd, 2, -1, 7, odd, odd, odd, odd, -5L, Double.NaN,
                Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, Map.of(odd, -3L), Map.of(odd, 4L)));
        assertSameAsJackson(new HostIfaceSample(1, odd, odd, 5, 1, 1e300, 4.9e-324, 123456.789, 1e7,
                Map.of(odd, 1L)));
    }

    @Test
    void randomRecordsAsJackson() {
        Random random = new Random(10);
        for (int i = 0; i < 2_000; i++) {
            Map<String, Long> errors = new TreeMap<>();
            for (int e = random.nextInt(4); e > 0; e--) {
                errors.put("c" + random.nextInt(50), random.nextLong());
            }
            assertSameAsJackson(new PortSample(1, "node-" + i, "mlx5_" + random.nextInt(8), random.nextInt(3),
                    random.nextLong(), random.nextInt(5000), "sysfs", "ACTIVE", "LinkUp", "InfiniBand",
                    random.nextBoolean() ? null : random.nextLong(), someDouble(random), someDouble(random),
                    someDouble(random), someDouble(random), errors, random.nextBoolean() ? errors : Map.of()));
            assertSameAsJackson(new HostIfaceSample(1, "node-" + i, "eth" + i, random.nextLong(), i,
                    someDouble(random), someDouble(random), someDouble(random), someDouble(random), errors));
        }
    }

    private static Double someDouble(Random random) {
        return switch (random.nextInt(5)) {
            case 0 -> null;
            case 1 -> (double) random.nextInt(1000);
            case 2 -> random.nextDouble() * Math.pow(10, random.nextInt(30) - 10);
            case 3 -> Double.longBitsToDouble(random.nextLong());
            default -> random.nextLong() * 4.0 * 1e9 / (1 + random.nextInt(2_000_000_000));
        };
    }

    private void assertSameAsJackson(PortSample s) {
        assertSameBytes(json.portSample(s), Json.toBytes(s));
    }

    private void assertSameAsJackson(HostIfaceSample s) {
        assertSameBytes(json.hostSample(s), Json.toBytes(s));
    }

    /** Compared as ISO-8859-1 text: one character per byte, so a difference shows where it is. */
    private static void assertSameBytes(byte[] actual, byte[] jackson) {
        assertThat(new String(actual, StandardCharsets.ISO_8859_1))
                .isEqualTo(new String(jackson, StandardCharsets.ISO_8859_1));
    }
}
