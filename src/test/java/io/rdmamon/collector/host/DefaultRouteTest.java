package io.rdmamon.collector.host;

import io.rdmamon.collector.CollectorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class DefaultRouteTest {
    private static final String HEADER = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT";

    @Test
    void shouldNameTheLowestMetricDefaultRouteThatIsUpWhenSeveralExist() {
        List<String> table = List.of(HEADER,
                "docker0\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0",
                "bond1\t00000000\t0101A8C0\t0002\t0\t0\t10\t00000000\t0\t0\t0",   // not up
                "eth1\t00000000\t0101A8C0\t0003\t0\t0\t200\t00000000\t0\t0\t0",
                "eth0\t00000000\t0100000A\t0003\t0\t0\t100\t00000000\t0\t0\t0");
        assertThat(DefaultRoute.interfaceOf(table)).contains("eth0");
    }

    @Test
    void shouldNameNoInterfaceWhenTheTableHasNoDefaultRouteOrIsMissing(@TempDir Path dir) {
        assertThat(DefaultRoute.interfaceOf(List.of(HEADER, "eth0\t0000000A\t00000000\t0001\t0\t0\t0\t000000FF\t0\t0\t0")))
                .isEmpty();
        assertThat(DefaultRoute.interfaceOf(dir.resolve("absent"))).isEmpty();
    }

    @Test
    void shouldSampleTheDefaultRoutesInterfaceWhenHostInterfacesAreAuto(@TempDir Path dir) throws Exception {
        Path route = Files.writeString(dir.resolve("route"), HEADER + "\nhpn0\t00000000\t0100000A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n");
        var auto = new CollectorConfig(Map.of(CollectorConfig.HOST_INTERFACES_CONFIG, "auto",
                CollectorConfig.HOST_ROUTE_FILE_CONFIG, route.toString()));
        assertThat(auto.hostInterfaces()).containsExactly("hpn0");
        var noRoute = new CollectorConfig(Map.of(CollectorConfig.HOST_INTERFACES_CONFIG, "auto",
                CollectorConfig.HOST_ROUTE_FILE_CONFIG, dir.resolve("absent").toString()));
        assertThat(noRoute.hostInterfaces()).isEmpty();
        assertThat(new CollectorConfig(Map.of()).hostInterfaces()).as("empty: none").isEmpty();
        assertThat(new CollectorConfig(Map.of(CollectorConfig.HOST_INTERFACES_CONFIG, "eth0,bond0")).hostInterfaces())
                .containsExactly("eth0", "bond0");
    }
}
