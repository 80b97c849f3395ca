package io.rdmamon.cli;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The default configuration files in the repository are generated from the code's ConfigDefs; this keeps them from
 * drifting. Regenerate with {@code ./rdmamon config show ROLE > FILE} (FILE as listed in ConfigCommand).
 */
class DefaultConfigFilesTest {
    @Test
    void shouldShipDefaultFilesThatMatchTheCodesDefinitions() throws Exception {
        for (var entry : ConfigCommand.roles().entrySet()) {
            Path file = Path.of(entry.getValue().file());
            assertThat(file).as("default configuration file for " + entry.getKey()).exists();
            assertThat(Files.readString(file))
                    .as(file + " is out of date: run ./rdmamon config show " + entry.getKey() + " > " + file)
                    .isEqualTo(entry.getValue().render());
        }
    }
}
