package io.rdmamon.testing;

import io.rdmamon.influx.InfluxdProcess;
import org.influxdb.InfluxDB;
import org.influxdb.InfluxDBIOException;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LocalInfluxdTest {
    @Test
    void shouldKeepPortAndDataWhenStoppedAndStartedAgain() {
        Path dir;
        try (InfluxdProcess influxd = LocalInfluxd.start(false)) {
            dir = influxd.dir();
            int port = influxd.port();
            try (InfluxDB client = LocalInfluxd.client(influxd)) {
                client.query(new org.influxdb.dto.Query("CREATE DATABASE keep", null, true));
                client.write("keep", "autogen", InfluxDB.ConsistencyLevel.ONE, "m v=1i 1767225600000000000");
                assertThat(LocalInfluxd.count(client, "keep", "autogen", "m", "v")).isEqualTo(1);

                influxd.stop();
                assertThat(influxd.isRunning()).isFalse();
                assertThatThrownBy(client::ping).isInstanceOf(InfluxDBIOException.class);

                influxd.start();
                assertThat(influxd.port()).isEqualTo(port);
                assertThat(client.ping().isGood()).isTrue();
                assertThat(LocalInfluxd.count(client, "keep", "autogen", "m", "v")).isEqualTo(1);
            }
        }
        assertThat(Files.exists(dir)).as("close deletes the data directory").isFalse();
    }

    @Test
    void shouldServeOnlyLoopbackHttpWithReportingOff() throws Exception {
        InfluxdProcess influxd = LocalInfluxd.shared();
        String config = Files.readString(influxd.dir().resolve("influxdb.conf"));

        assertThat(influxd.url()).startsWith("http://127.0.0.1:");
        assertThat(config).contains("reporting-disabled = true", "bind-address = \"127.0.0.1:" + influxd.port());
        try (InfluxDB client = LocalInfluxd.client(influxd)) {
            assertThat(client.version()).startsWith("1.");
        }
    }
}
