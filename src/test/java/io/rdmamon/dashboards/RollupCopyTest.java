package io.rdmamon.dashboards;

import io.rdmamon.influx.InfluxQl;
import io.rdmamon.influx.MeasurementSpec;
import io.rdmamon.influx.Schema;
import io.rdmamon.testing.LocalInfluxd;
import io.rdmamon.testing.ScenarioDatabase;
import org.junit.jupiter.api.Test;

import static io.rdmamon.influx.InfluxQl.quote;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RollupCopy} on influxd 1.x, where source and copy can be compared: the container tests depend on it and
 * cannot run here. Every rollup point arrives with its tags, field values and field types.
 */
class RollupCopyTest {
    @Test
    void shouldCopyEveryRollupPointWithItsTypesWhenCopiedIntoAnotherDatabase() {
        ScenarioDatabase source = ScenarioDatabase.get();
        String copy = LocalInfluxd.uniqueDatabase("rollup_copy");
        String rp = source.settings.rollupRetentionPolicy();
        InfluxQl.execute(source.client, copy, "CREATE DATABASE " + quote(copy));
        InfluxQl.execute(source.client, copy, "CREATE RETENTION POLICY " + quote(rp) + " ON " + quote(copy)
                + " DURATION INF REPLICATION 1");
        try {
            int copied = RollupCopy.copy(source.client, source.database(), rp, source.client, copy, rp);

            assertThat(copied).isPositive();
            for (MeasurementSpec m : Schema.ALL) {
                String from = quote(rp) + "." + quote(m.name());
                for (String query : new String[] {"SHOW FIELD KEYS FROM " + from, "SHOW TAG KEYS FROM " + from,
                        "SELECT * FROM " + from + " GROUP BY *"}) {
                    // influxdb-java's results have no equals(); their text shows every tag, column and value
                    assertThat(InfluxQl.execute(source.client, copy, query).getResults().toString()).as(query)
                            .isEqualTo(InfluxQl.execute(source.client, source.database(), query).getResults()
                                    .toString());
                }
            }
        } finally {
            InfluxQl.execute(source.client, copy, "DROP DATABASE " + quote(copy));
        }
    }
}
