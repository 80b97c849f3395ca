package io.rdmamon.collector.eadm;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EadmConfigTest {
    @Test
    void shouldUseDocumentedDefaultsWhenNothingIsSet() {
        EadmConfig config = new EadmConfig(Map.of());

        assertThat(config.enabled()).isTrue();
        assertThat(config.commandFor("erdma_0")).containsExactly("eadm", "stat", "-d", "erdma_0", "-l");
        assertThat(config.devices()).isEmpty();
        assertThat(config.silenceTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.backoffInitial()).isEqualTo(Duration.ofSeconds(1));
        assertThat(config.backoffMax()).isEqualTo(Duration.ofSeconds(60));
        assertThat(config.stableRun()).isEqualTo(Duration.ofSeconds(60));
        assertThat(config.maxAge()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.crossCheckTolerance()).isEqualTo(0.10);
        assertThat(config.crossCheckMinBytesPerSec()).isEqualTo(1_048_576.0);
        assertThat(config.crossCheckWindow()).isEqualTo(10);
    }

    @Test
    void shouldReplaceDevicePlaceholderInEveryArgumentWhenCommandIsSet() {
        EadmConfig config = new EadmConfig(Map.of(EadmConfig.COMMAND_CONFIG,
                "  /opt/erdma/bin/eadm   stat -d{device} --tag={device}-x -l "));

        assertThat(config.commandFor("erdma_1"))
                .containsExactly("/opt/erdma/bin/eadm", "stat", "-derdma_1", "--tag=erdma_1-x", "-l");
    }

    @Test
    void shouldRejectWithKeyNameWhenValueIsInvalid() {
        assertThatThrownBy(() -> new EadmConfig(Map.of(EadmConfig.CROSSCHECK_TOLERANCE_CONFIG, "1.5")))
                .isInstanceOf(ConfigException.class).hasMessageContaining(EadmConfig.CROSSCHECK_TOLERANCE_CONFIG);
        assertThatThrownBy(() -> new EadmConfig(Map.of(EadmConfig.COMMAND_CONFIG, " ")))
                .isInstanceOf(ConfigException.class).hasMessageContaining(EadmConfig.COMMAND_CONFIG);
        assertThatThrownBy(() -> new EadmConfig(Map.of(EadmConfig.SILENCE_TIMEOUT_MS_CONFIG, "soon")))
                .isInstanceOf(ConfigException.class).hasMessageContaining(EadmConfig.SILENCE_TIMEOUT_MS_CONFIG);
    }

    @Test
    void shouldRejectBackoffWhenInitialExceedsMax() {
        assertThatThrownBy(() -> new EadmConfig(Map.of(EadmConfig.BACKOFF_INITIAL_MS_CONFIG, "5000",
                EadmConfig.BACKOFF_MAX_MS_CONFIG, "1000")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(EadmConfig.BACKOFF_INITIAL_MS_CONFIG).hasMessageContaining("5000");
    }
}
