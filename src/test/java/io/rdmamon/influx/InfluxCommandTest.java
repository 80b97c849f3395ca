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
