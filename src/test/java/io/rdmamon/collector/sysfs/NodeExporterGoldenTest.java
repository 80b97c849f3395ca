package io.rdmamon.collector.sysfs;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.testing.Ttar;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Our reading of node_exporter's fixture must yield exactly the series node_exporter's own e2e output lists: the same
 * values, and the same absences (a missing or {@code N/A} file gives no series there and no value here).
 */
class NodeExporterGoldenTest {
    private static final Pattern SAMPLE = Pattern.compile("^node_infiniband_(\\w+)\\{([^}]*)} (\\S+)$");
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    /** node_exporter metric → the value we read, or null when we have none. */
    private static final Map<String, Function<PortReading, Double>> PORT_METRICS = new HashMap<>();

    static {
        counter("port_data_received_bytes_total", CounterFolder.COUNTERS, "port_rcv_data", 4);
        counter("port_data_transmitted_bytes_total", CounterFolder.COUNTERS, "port_xmit_data", 4);
        counter("legacy_data_received_bytes_total", CounterFolder.COUNTERS_EXT, "port_rcv_data_64", 4);
        counter("legacy_data_transmitted_bytes_total", CounterFolder.COUNTERS_EXT, "port_xmit_data_64", 4);
        counter("legacy_packets_received_total", CounterFolder.COUNTERS_EXT, "port_rcv_packets_64", 1);
        counter("legacy_packets_transmitted_total", CounterFolder.COUNTERS_EXT, "port_xmit_packets_64", 1);
        counter("legacy_multicast_packets_received_total", CounterFolder.COUNTERS_EXT, "port_multicast_rcv_packets", 1);
        counter("legacy_multicast_packets_transmitted_total", CounterFolder.COUNTERS_EXT,
                "port_multicast_xmit_packets", 1);
        counter("legacy_unicast_packets_received_total", CounterFolder.COUNTERS_EXT, "port_unicast_rcv_packets", 1);
        counter("legacy_unicast_packets_transmitted_total", CounterFolder.COUNTERS_EXT, "port_unicast_xmit_packets",
                1);
        counter("link_downed_total", CounterFolder.COUNTERS, "link_downed", 1);
        counter("link_error_recovery_total", CounterFolder.COUNTERS, "link_error_recovery", 1);
        counter("multicast_packets_received_total", CounterFolder.COUNTERS, "multicast_rcv_packets", 1);
        counter("multicast_packets_transmitted_total", CounterFolder.COUNTERS, "multicast_xmit_packets", 1);
        counter("unicast_packets_received_total", CounterFolder.COUNTERS, "unicast_rcv_packets", 1);
        counter("unicast_packets_transmitted_total", CounterFolder.COUNTERS, "unicast_xmit_packets", 1);
        counter("port_constraint_errors_received_total", CounterFolder.COUNTERS, "port_rcv_constraint_errors", 1);
        counter("port_constraint_errors_transmitted_total", CounterFolder.COUNTERS, "port_xmit_constraint_errors", 1);
        counter("port_discards_received_total", CounterFolder.COUNTERS, "port_rcv_discards", 1);
        counter("port_discards_transmitted_total", CounterFolder.COUNTERS, "port_xmit_discards", 1);
        counter("port_errors_received_total", CounterFolder.COUNTERS, "port_rcv_errors", 1);
        counter("port_packets_received_total", CounterFolder.COUNTERS, "port_rcv_packets", 1);
        counter("port_packets_transmitted_total", CounterFolder.COUNTERS, "port_xmit_packets", 1);
        counter("port_transmit_wait_total", CounterFolder.COUNTERS, "port_xmit_wait", 1);
        PORT_METRICS.put("state_id", port -> port.state() == null ? null : port.state().id().doubleValue());
        PORT_METRICS.put("physical_state_id",
                port -> port.physState() == null ? null : port.physState().id().doubleValue());
        PORT_METRICS.put("rate_bytes_per_second",
                port -> port.rateBytesPerSec() == null ? null : port.rateBytesPerSec().doubleValue());
    }

    private static void counter(String metric, CounterFolder folder, String file, long unit) {
        PORT_METRICS.put(metric, port -> {
            Long value = port.counter(folder, file);
            return value == null ? null : (double) (value * unit);
        });
    }

    @TempDir
    Path tmp;

    @Test
    void shouldMatchNodeExporterSeriesExactlyWhenReadingItsFixture() throws IOException {
        Path root = Ttar.unpackResource("/fixtures/node-exporter-infiniband.ttar", tmp).resolve("sys");
        SysfsRdmaReader reader = new SysfsRdmaReader(root, new SysfsFiles(new ReadProblems(new SimpleMeterRegistry())));
        List<DeviceReading> devices = new ArrayList<>();
        for (String device : reader.devices()) {
            devices.add(reader.readDevice(device));
        }

        Map<String, Double> ours = new TreeMap<>();
        List<String> ourInfo = new ArrayList<>();
        for (DeviceReading device : devices) {
            ourInfo.add(device.boardId() + "|" + device.device() + "|" + device.fwVer() + "|" + device.hcaType());
            for (PortReading port : device.ports()) {
                PORT_METRICS.forEach((metric, value) -> {
                    Double v = value.apply(port);
                    if (v != null) {
                        ours.put(metric + "{" + device.device() + "/" + port.port() + "}", v);
                    }
                });
            }
        }

        Map<String, Double> theirs = new TreeMap<>();
        List<String> theirInfo = new ArrayList<>();
        for (String line : expectedProm().split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            Map<String, String> labels = new HashMap<>();
            Matcher l = LABEL.matcher(m.group(2));
            while (l.find()) {
                labels.put(l.group(1), l.group(2));
            }
            if (m.group(1).equals("info")) {
                theirInfo.add(labels.get("board_id") + "|" + labels.get("device") + "|"
                        + labels.get("firmware_version") + "|" + labels.get("hca_type"));
            } else {
                assertThat(PORT_METRICS).as("metric mapped: " + m.group(1)).containsKey(m.group(1));
                theirs.put(m.group(1) + "{" + labels.get("device") + "/" + labels.get("port") + "}",
                        Double.parseDouble(m.group(3)));
            }
        }

        assertThat(theirs).hasSize(49);
        assertThat(ours).isEqualTo(theirs);
        assertThat(ourInfo).containsExactlyInAnyOrderElementsOf(theirInfo);
    }

    private static String expectedProm() throws IOException {
        try (InputStream in = NodeExporterGoldenTest.class.getResourceAsStream(
                "/fixtures/node-exporter-infiniband.expected.prom")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
