package io.rdmamon.influx;

import io.rdmamon.testing.LocalInfluxd;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.influxdb.InfluxDB;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code rdmamon influx init} against a real influxd 1.x: policies, continuous queries, rollup arithmetic. */
class InfluxSetupTest {
    private final String database = LocalInfluxd.uniqueDatabase("setup");
    private InfluxDB influx;

    @BeforeEach
    void connect() {
        influx = LocalInfluxd.client(LocalInfluxd.shared());
    }

    @AfterEach
    void dropDatabase() {
        InfluxQl.execute(influx, database, "DROP DATABASE \"" + database + "\"");
        influx.close();
    }

    private InfluxSettings settings(Map<String, String> overrides) {
        Map<String, Object> props = new HashMap<>(overrides);
        props.put(InfluxSettings.URL_CONFIG, LocalInfluxd.shared().url());
        props.put(InfluxSettings.DATABASE_CONFIG, database);
        ConfigDef def = InfluxSettings.define(new ConfigDef());
        return InfluxSettings.from(new AbstractConfig(def, props, false));
    }

    @Test
    void shouldCreatePoliciesAndContinuousQueriesAndChangeNothingWhenRunTwice() {
        InfluxSetup setup = new InfluxSetup(influx, settings(Map.of()));
        setup.apply();
        List<List<Object>> policies = LocalInfluxd.rows(influx, database, "SHOW RETENTION POLICIES ON " + database);
        List<List<Object>> queries = continuousQueries();

        setup.apply();

        assertThat(policies).contains(
                List.of("rp_raw", "168h0m0s", "24h0m0s", 1.0, true),
                List.of("rp_1y", "8760h0m0s", "168h0m0s", 1.0, false));
        assertThat(queries).extracting(row -> row.get(0)).containsExactlyInAnyOrder(
                "cq_rdma_port_1m", "cq_rdma_port_errors_1m", "cq_host_iface_1m", "cq_host_iface_errors_1m",
                "cq_gpu_1m", "cq_job_bandwidth_1m", "cq_job_rank_bandwidth_1m", "cq_link_health_1m", "cq_alert_1m");
        assertThat(queries).allSatisfy(row -> assertThat(row.get(1).toString())
                .contains("RESAMPLE EVERY 1m FOR 5m", "INTO " + database + ".rp_1y.", "GROUP BY time(1m), *"));
        assertThat(LocalInfluxd.rows(influx, database, "SHOW RETENTION POLICIES ON " + database)).isEqualTo(policies);
        assertThat(continuousQueries()).isEqualTo(queries);
    }

    @Test
    void shouldAlterPoliciesAndReplaceQueriesWhenTheSettingsChange() {
        new InfluxSetup(influx, settings(Map.of())).apply();

        new InfluxSetup(influx, settings(Map.of(
                InfluxSettings.RETENTION_DURATION_CONFIG, "36h",
                InfluxSettings.ROLLUP_RETENTION_DURATION_CONFIG, "30d",
                InfluxSettings.ROLLUP_RESAMPLE_MINUTES_CONFIG, "10"))).apply();

        assertThat(LocalInfluxd.rows(influx, database, "SHOW RETENTION POLICIES ON " + database)).contains(
                List.of("rp_raw", "36h0m0s", "1h0m0s", 1.0, true),
                List.of("rp_1y", "720h0m0s", "24h0m0s", 1.0, false));
        assertThat(continuousQueries()).hasSize(9)
                .allSatisfy(row -> assertThat(row.get(1).toString()).contains("FOR 10m"));
    }

    @Test
    void shouldRollUpMeansMaximaSumsAndLastStatesPerMinuteWhenBackfilled() {
        InfluxSettings settings = settings(Map.of());
        InfluxSetup setup = new InfluxSetup(influx, settings);
        setup.apply();
        long minute = Instant.now().truncatedTo(ChronoUnit.MINUTES).minus(2, ChronoUnit.MINUTES).toEpochMilli();
        String tags = "link_health,node=n1,device=erdma_0,port=1,job_uid=u1 ";
        influx.write(database, "rp_raw", InfluxDB.ConsistencyLevel.ONE, java.util.concurrent.TimeUnit.MILLISECONDS,
                String.join("\n",
                        tags + "state=\"ACTIVE\",active=1i,utilisation=0.2,errors_drop=2i " + minute,
                        tags + "state=\"ACTIVE\",active=1i,utilisation=0.4 " + (minute + 20_000),
                        tags + "state=\"DOWN\",active=0i,utilisation=0.9,errors_drop=5i " + (minute + 40_000),
                        tags + "state=\"ACTIVE\",active=1i,utilisation=0.5 " + (minute + 60_000)));

        setup.backfill(Duration.ofMinutes(10));

        List<List<Object>> rollup = LocalInfluxd.rows(influx, database,
                "SELECT utilisation, utilisation_max, errors_drop, state, active, active_mean, job_uid "
                        + "FROM rp_1y.link_health ORDER BY time");
        assertThat(rollup).hasSize(2);
        assertThat(rollup.get(0).subList(1, 8)).containsExactly(0.5, 0.9, 7.0, "DOWN", 0.0, 2.0 / 3, "u1");
        assertThat(rollup.get(1).subList(1, 8)).containsExactly(0.5, 0.5, null, "ACTIVE", 1.0, 1.0, "u1");
    }

    private List<List<Object>> continuousQueries() {
        return InfluxQl.execute(influx, database, "SHOW CONTINUOUS QUERIES").getResults().get(0).getSeries().stream()
                .filter(s -> s.getName().equals(database))
                .findFirst().orElseThrow().getValues();
    }
}
