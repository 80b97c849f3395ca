package io.rdmamon.support;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class LogLimiterTest {
    private final AtomicLong nanos = new AtomicLong(1_000);
    private final LogLimiter limiter = new LogLimiter(Duration.ofSeconds(60), nanos::get);

    @Test
    void shouldAdmitFirstEventThenSuppressUntilPeriodEndsWhenEventsRepeat() {
        assertThat(limiter.admit("erdma_0")).isZero();
        assertThat(limiter.admit("erdma_0")).isEqualTo(LogLimiter.SUPPRESS);
        nanos.addAndGet(Duration.ofSeconds(59).toNanos());
        assertThat(limiter.admit("erdma_0")).isEqualTo(LogLimiter.SUPPRESS);
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());

        assertThat(limiter.admit("erdma_0")).as("suppressed since the last logged one").isEqualTo(2);
        assertThat(limiter.admit("erdma_0")).isEqualTo(LogLimiter.SUPPRESS);
    }

    @Test
    void shouldLimitEachKeyOnItsOwnWhenKeysDiffer() {
        assertThat(limiter.admit("erdma_0")).isZero();
        assertThat(limiter.admit("erdma_1")).isZero();
        assertThat(limiter.admit("erdma_0")).isEqualTo(LogLimiter.SUPPRESS);
    }

    @Test
    void shouldDescribeSuppressedCountOnlyWhenSomeWereSuppressed() {
        assertThat(LogLimiter.suffix(0)).isEmpty();
        assertThat(LogLimiter.suffix(12)).isEqualTo(" (12 more since the last report)");
    }
}
