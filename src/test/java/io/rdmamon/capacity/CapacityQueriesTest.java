package io.rdmamon.capacity;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The window and source of the capacity queries; what they compute is checked on real data in CapacityReportTest. */
class CapacityQueriesTest {

    @Test
    void shouldWriteTheWindowAsTheLargestWholeInfluxQlUnit() {
        assertThat(new CapacityQueries("rp_1y", Duration.ofDays(30)).windowLiteral()).isEqualTo("30d");
        assertThat(new CapacityQueries("rp_1y", Duration.ofHours(36)).windowLiteral()).isEqualTo("36h");
        assertThat(new CapacityQueries("rp_1y", Duration.ofMinutes(90)).windowLiteral()).isEqualTo("90m");
        assertThat(new CapacityQueries("rp_1y", Duration.ofSeconds(45)).windowLiteral()).isEqualTo("45s");
    }

    @Test
    void shouldReadTheDatabaseItselfWhenNoRetentionPolicyIsGiven() {
        CapacityQueries none = new CapacityQueries("", Duration.ofDays(7));
        CapacityQueries rollups = new CapacityQueries("rp_1y", Duration.ofDays(7));

        assertThat(none.linkPercentiles()).contains("FROM \"link_health\" WHERE time > now() - 7d")
                .doesNotContain("\"\".");
        assertThat(rollups.hourlyThroughput()).contains("FROM \"rp_1y\".\"rdma_port\" WHERE time > now() - 7d");
        assertThat(rollups.idleLinks(0.05)).contains("WHERE \"peak\" < 0.05 GROUP BY");
    }
}
