package io.rdmamon.bench;

import io.rdmamon.testing.LocalInfluxd;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/** The benchmark runs and reports a rate per path (no timing is asserted). */
class SinkBenchmarkTest {
    @Test
    void shouldReportPointsPerSecondOfSinkAndPlainHttpWhenRunSmall() {
        StringWriter out = new StringWriter();
        CommandLine cmd = new CommandLine(new SinkBenchmark());
        cmd.setOut(new PrintWriter(out));

        // the end-to-end path (a second, embedded broker) is left out to keep the suite fast; InfluxSinkTest covers it
        int exit = cmd.execute("--points", "2000", "--batch", "500", "--no-kafka", "--influx-url",
                LocalInfluxd.shared().url());

        assertThat(exit).isZero();
        assertThat(out.toString()).containsPattern("plain HTTP POST .* [0-9,]+ points/s")
                .containsPattern("sink write path .* [0-9,]+ points/s +\\(\\d\\.\\d\\d of plain HTTP\\)")
                .doesNotContain("end to end");
    }
}
