package io.rdmamon.bench;

import io.rdmamon.testing.SharedKafka;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/** The sizing benchmark runs end to end on a tiny cluster and reports every figure (no figure is asserted). */
class SizingBenchmarkTest {
    @Test
    void shouldReportStreamAppAndSinkFiguresWhenRunSmall() {
        StringWriter out = new StringWriter();
        CommandLine cmd = new CommandLine(new SizingBenchmark());
        cmd.setOut(new PrintWriter(out));

        int exit = cmd.execute("--nodes", "8", "--devices", "2", "--nodes-per-job", "4", "--backlog", "20",
                "--live", "5", "--heap", "384m", "--bootstrap-servers", SharedKafka.bootstrapServers());

        assertThat(exit).as(out.toString()).isZero();
        assertThat(out.toString())
                .containsPattern("backlog: [0-9,]+ records \\(24 port and host samples per second\\)")
                .containsPattern("stream app, catch-up .*: [0-9,]+ records in [0-9.]+ s")
                .containsPattern("stream app, live: [0-9,]+ records .* CPU cores on average")
                .containsPattern("its Kafka bytes, live: [0-9,]+ KiB/s into the brokers' logs, against [0-9,]+ KiB/s "
                        + "of samples in .*\\(KiB/s: .*link-health")
                .containsPattern("stream app, output: [1-9][0-9,]* link-health records")
                .containsPattern("stream app, memory: live heap after full GC [0-9,]+ MiB; resident [0-9,]+ MiB")
                .containsPattern("sink, catch-up: [1-9][0-9,]* offsets")
                .containsPattern("influxd \\(local, .*\\), during the catch-up: [0-9.]+ CPU ms per point")
                .containsPattern("influxd disk: [0-9,]+ MiB of TSM files in rp_raw for [1-9][0-9,]* points written = "
                        + "[0-9.]*[1-9][0-9.]* bytes per point( \\([0-9,]+ MiB still in the WAL\\))?; at 1 Hz [0-9,]+ MiB "
                        + "per day");
    }
}
