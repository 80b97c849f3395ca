package io.rdmamon.config;

import io.rdmamon.cli.Main;
import io.rdmamon.collector.CollectorConfig;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfigLoaderTest {

    @Test
    void shouldApplyFileThenEnvironmentThenFlags(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("c.properties"), """
                collector.interval.ms=500
                collector.node=from-file
                kafka.acks=1
                """);
        Map<String, Object> loaded = ConfigLoader.load(CollectorConfig.CONFIG, file,
                Map.of("RDMAMON_COLLECTOR_NODE", "from-env", "RDMAMON_KAFKA_LINGER_MS", "20"),
                Map.of(CollectorConfig.INTERVAL_MS_CONFIG, "250"), CollectorConfig.KAFKA_PREFIX);

        assertThat(loaded).containsEntry(CollectorConfig.INTERVAL_MS_CONFIG, "250")
                .containsEntry(CollectorConfig.NODE_CONFIG, "from-env")
                .containsEntry("kafka.acks", "1")
                .containsEntry("kafka.linger.ms", "20");
    }

    @Test
    void shouldRejectAMisspeltKeyInTheFileWithItsNameAndTheFile(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("c.properties"), "collector.intervall.ms=500\nkafka.acks=1\n");

        assertThatThrownBy(() -> ConfigLoader.load(CollectorConfig.CONFIG, file, Map.of(), Map.of(),
                CollectorConfig.KAFKA_PREFIX))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("unknown setting collector.intervall.ms in " + file)
                .hasMessageContaining("kafka.");
    }

    @Test
    void shouldRejectAMisspeltKeyGivenWithSetAndExitWithTheConfigurationErrorStatus(@TempDir Path dir) {
        StringWriter err = new StringWriter();
        CommandLine cmd = Main.commandLine();
        cmd.setErr(new PrintWriter(err));

        int status = cmd.execute("collector", "--once", "--sysfs", dir.toString(),
                "--set", "collector.intervall.ms=500", "--set", "colector.node=n1");

        assertThat(status).isEqualTo(2);
        assertThat(err.toString()).contains("unknown settings colector.node, collector.intervall.ms on the command line");
    }

    @Test
    void shouldKeepASetValueWhenTheNamedFlagOfItsKeyIsLeftOut() {
        StringWriter err = new StringWriter();
        CommandLine cmd = Main.commandLine();
        cmd.setErr(new PrintWriter(err));

        // --influx-url is capacity's named flag for influx.url; port 9 on loopback refuses at once
        int status = cmd.execute("capacity", "--set", "influx.url=http://127.0.0.1:9");

        assertThat(status).isEqualTo(1);
        assertThat(err.toString()).contains("cannot query InfluxDB at http://127.0.0.1:9 ");
    }

    @Test
    void shouldLetAGivenNamedFlagWinOverSet() {
        ConfigOptions options = new ConfigOptions();
        options.overrides.put("kafka.bootstrap.servers", "from-set:9092");
        options.overrides.put("collector.node", "n1");
        Map<String, Object> named = new HashMap<>();
        named.put("kafka.bootstrap.servers", "from-flag:9092");
        named.put("collector.node", null);

        assertThat(options.withNamedFlags(named)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "kafka.bootstrap.servers", "from-flag:9092", "collector.node", "n1"));
    }

    @Test
    void shouldNotCheckTheEnvironmentWhichHoldsOtherVariablesWithThePrefix() {
        Map<String, Object> loaded = ConfigLoader.load(CollectorConfig.CONFIG, null,
                Map.of("RDMAMON_JAVA_OPTS", "-Xmx1g", "RDMAMON_COLLECTOR_NODE", "n1"), Map.of());

        assertThat(loaded).containsOnlyKeys(CollectorConfig.NODE_CONFIG);
    }
}
