package io.rdmamon.bench;

import io.rdmamon.testing.SharedKafka;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stream tier as a distributed system, on a real broker (the scenario of {@code rdmamon bench failover}): two
 * {@code rdmamon streams} processes share the tasks of one live cluster, a third joins mid-stream, then one of the
 * first two is killed with SIGKILL and not restarted, and every job hangs just after. Every job's windows still come
 * each once and none missing, each job's STALLED_SYNC comes once, nothing else fires, and the jobs have new windows
 * soon after the kill.
 */
class StreamsFailoverTest {
    @TempDir
    Path work;

    @Test
    void shouldShareTasksAndTakeOverADeadInstanceLosingAndRepeatingNothing() throws Exception {
        FailoverBenchmark bench = new FailoverBenchmark();
        bench.before = Duration.ofSeconds(50);
        bench.join = Duration.ofSeconds(20);
        bench.after = Duration.ofSeconds(25);

        FailoverBenchmark.Result r = bench.run(SharedKafka.bootstrapServers(), work);

        assertThat(FailoverBenchmark.problems(r)).isEmpty();
        assertThat(r.sharedBeforeJoin()).as("both instances take samples").containsOnlyKeys("a", "b")
                .allSatisfy((instance, partitions) -> assertThat(partitions).isPositive());
        assertThat(r.samplePartitionsByInstance().values().stream().mapToInt(Integer::intValue).sum())
                .as("every sample partition has an owner").isEqualTo(bench.partitions);
        // the figure against the 15 s goal is the benchmark's (docs/performance.md, Fail-over); here only a bound that Kafka's
        // default session timeout alone (45 s) would break, loose enough for a busy two-core machine
        assertThat(r.blindSpotMs()).as("kill to every job's next window").isLessThan(25_000);
        assertThat(r.stallLatenciesMs()).as("hang to STALLED_SYNC").allSatisfy(ms -> assertThat(ms)
                .isLessThan(40_000));
    }
}
