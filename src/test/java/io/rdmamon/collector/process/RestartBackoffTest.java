package io.rdmamon.collector.process;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class RestartBackoffTest {
    private static final long SHORT_RUN = Duration.ofMillis(10).toNanos();
    private static final long STABLE_RUN = Duration.ofSeconds(60).toNanos();

    private final RestartBackoff backoff = new RestartBackoff(Duration.ofSeconds(1), Duration.ofSeconds(6),
            Duration.ofSeconds(60));

    @Test
    void shouldDoubleUpToMaxWhenRunsKeepFailing() {
        assertThat(backoff.delayMsAfter(SHORT_RUN)).isEqualTo(1_000);
        assertThat(backoff.delayMsAfter(SHORT_RUN)).isEqualTo(2_000);
        assertThat(backoff.delayMsAfter(0)).isEqualTo(4_000);
        assertThat(backoff.delayMsAfter(SHORT_RUN)).isEqualTo(6_000);
        assertThat(backoff.delayMsAfter(SHORT_RUN)).isEqualTo(6_000);
    }

    @Test
    void shouldStartAgainFromInitialWhenRunWasStable() {
        backoff.delayMsAfter(SHORT_RUN);
        backoff.delayMsAfter(SHORT_RUN);
        backoff.delayMsAfter(SHORT_RUN);

        assertThat(backoff.delayMsAfter(STABLE_RUN)).isEqualTo(1_000);
        assertThat(backoff.delayMsAfter(SHORT_RUN)).isEqualTo(2_000);
    }

    @Test
    void shouldNotOverflowWhenMaxIsHuge() {
        RestartBackoff huge = new RestartBackoff(Duration.ofMillis(Long.MAX_VALUE / 3), Duration.ofMillis(Long.MAX_VALUE),
                Duration.ofDays(1));
        huge.delayMsAfter(0);
        huge.delayMsAfter(0);

        assertThat(huge.delayMsAfter(0)).isEqualTo(Long.MAX_VALUE);
    }
}
