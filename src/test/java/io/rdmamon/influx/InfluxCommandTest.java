package io.rdmamon.influx;

import io.rdmamon.cli.Main;
import io.rdmamon.testing.LocalInfluxd;
import org.influxdb.InfluxDB;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code rdmamon influx ...} and {@code rdmamon sink} as an operator runs them. */
class InfluxCommandTest {
    @Test
    void shouldInitialiseTheConfiguredDatabaseWhenRunFromTheCommandLine() {
        String database = LocalInfluxd.uniqueDatabase("cli");
        String url = LocalInfluxd.shared().url();

        int exit = Main.commandLine().execute("influx", "init", "--set", "influx.url=" + url,
                "--set", "influx.database=" + database, "--backfill", "1h");

        assertThat(exit).isZero();
        try (InfluxDB influx = LocalInfluxd.client(LocalInfluxd.shared())) {
            assertThat(LocalInfluxd.rows(influx, database, "SHOW RETENTION POLICIES ON " + database))
                    .extracting(row -> row.get(0)).contains("rp_raw", "rp_1y");
            InfluxQl.execute(influx, database, "DROP DATABASE \"" + database + "\"");
        }
    }

    @Test
    void shouldPrintTheStatementsWithoutAServerWhenAskedTo() {
        StringWriter out = new StringWriter();
        CommandLine cmd = Main.commandLine();
        cmd.setOut(new PrintWriter(out));

        int exit = cmd.execute("influx", "init", "--print", "--set", "influx.url=http://127.0.0.1:1");

        assertThat(exit).isZero();
        assertThat(out.toString()).startsWith("CREATE DATABASE \"rdmamon\";")
                .contains("CREATE CONTINUOUS QUERY \"cq_alert_1m\" ON \"rdmamon\" RESAMPLE EVERY 1m FOR 5m BEGIN");
    }

    @Test
    void shouldAcceptTheSinksConfigurationFileAsComposeAndTheManifestsPassIt() throws Exception {
        // compose and the manifests run 'influx init --config sink.properties': the sink's file, with its other keys
        java.nio.file.Path site = java.nio.file.Files.createTempFile("sink-", ".properties");
        java.nio.file.Files.writeString(site, "kafka.bootstrap.servers=kafka:9092\ninflux.database=site_db\n"
                + "sink.topics.alerts=rdma.alerts\nmetrics.port=9466\n");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = Main.commandLine();
        cmd.setOut(new PrintWriter(out));
        cmd.setErr(new PrintWriter(err));

        int image = cmd.execute("influx", "init", "--print", "--config", "streams/sink.properties");
        int configMap = cmd.execute("influx", "init", "--print", "--config", site.toString());

        java.nio.file.Files.delete(site);
        assertThat(err.toString()).isEmpty();
        assertThat(image).isZero();
        assertThat(configMap).isZero();
        assertThat(out.toString()).contains("CREATE DATABASE \"rdmamon\";", "CREATE DATABASE \"site_db\";");
    }

    @Test
    void shouldExitWithCode2AndNameTheKeyWhenASettingIsInvalid() {
        StringWriter err = new StringWriter();
        CommandLine cmd = Main.commandLine();
        cmd.setErr(new PrintWriter(err));

        int sink = cmd.execute("sink", "--set", "influx.retention.duration=a week");
        int init = cmd.execute("influx", "init", "--set", "influx.database=bad name");

        assertThat(sink).isEqualTo(2);
        assertThat(init).isEqualTo(2);
        assertThat(err.toString()).contains("influx.retention.duration", "influx.database");
    }
}
