package io.rdmamon.streams;

import io.rdmamon.cli.Main;
import io.rdmamon.config.ConfigTemplate;
import io.rdmamon.detect.DetectorConfig;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StreamsAppConfigTest {
    /** The shipped sample configuration; regenerate with {@code ./rdmamon streams --print-config > FILE}. */
    static final Path SAMPLE = Path.of("streams", "rdmamon-streams.properties");

    @Test
    void shouldShipSampleConfigGeneratedFromTheDefaults() throws Exception {
        StringWriter out = new StringWriter();
        CommandLine cmd = Main.commandLine();
        cmd.setOut(new PrintWriter(out, true));
        assertThat(cmd.execute("streams", "--print-config")).isZero();
        assertThat(out.toString()).isEqualTo(ConfigTemplate.properties("rdmamon streams", StreamsAppConfig.CONFIG_DEF))
                .contains("#streams.stall.min.quiet.ms=8000", "#streams.application.id=rdmamon-streams");
        assertThat(Files.readString(SAMPLE)).as("%s is stale: regenerate it", SAMPLE).isEqualTo(out.toString());
    }

    @Test
    void shouldRejectInconsistentThresholdsWithTheirNames() {
        assertThatThrownBy(() -> new StreamsAppConfig(Map.of(DetectorConfig.STRAGGLER_MIN_FLAGGED_CONFIG, 5)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(DetectorConfig.STRAGGLER_MIN_FLAGGED_CONFIG)
                .hasMessageContaining(DetectorConfig.STRAGGLER_WINDOWS_CONFIG);
        assertThatThrownBy(() -> new StreamsAppConfig(Map.of(DetectorConfig.LINK_DEGRADED_CLASSES_CONFIG,
                "retransmit,bogus"))).isInstanceOf(ConfigException.class).hasMessageContaining("bogus");
        assertThatThrownBy(() -> new StreamsAppConfig(Map.of(StreamsAppConfig.WINDOW_SIZE_CONFIG, "ten")))
                .isInstanceOf(ConfigException.class).hasMessageContaining(StreamsAppConfig.WINDOW_SIZE_CONFIG);
    }

    @Test
    void shouldPassKafkaSettingsThroughToKafkaStreams() {
        StreamsAppConfig cfg = new StreamsAppConfig(Map.of("kafka.security.protocol", "SSL",
                StreamsAppConfig.APPLICATION_ID_CONFIG, "my-app"));
        assertThat(RdmamonTopology.streamsConfig(cfg)).containsEntry("security.protocol", "SSL")
                .containsEntry("application.id", "my-app").containsEntry("processing.guarantee", "exactly_once_v2");
    }
}
