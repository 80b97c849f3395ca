package io.rdmamon.alerts;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class BackoffTest {
    @Test
    void shouldDoubleUpToTheMaximumAndStartOverAfterReset() {
        Backoff backoff = new Backoff(Duration.ofMillis(500), Duration.ofMillis(3_000), () -> 0.0);

        assertThat(IntStream.range(0, 6).mapToObj(i -> backoff.next().toMillis()))
                .containsExactly(500L, 1_000L, 2_000L, 3_000L, 3_000L, 3_000L);
        assertThat(backoff.failures()).isEqualTo(6);

        backoff.reset();
        assertThat(backoff.next()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void shouldShortenEachWaitByAtMostTheJitter() {
        Backoff backoff = new Backoff(Duration.ofMillis(1_000), Duration.ofMillis(1_000), () -> 0.999_999);

        assertThat(backoff.next().toMillis()).isEqualTo(800L);
    }

    @Test
    void shouldNotOverflowAfterManyFailures() {
        Backoff backoff = new Backoff(Duration.ofMillis(10), Duration.ofMinutes(10), () -> 0.0);

        IntStream.range(0, 200).forEach(i -> backoff.next());

        assertThat(backoff.next()).isEqualTo(Duration.ofMinutes(10));
    }
}
