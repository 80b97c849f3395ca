package io.rdmamon.dashboards;

import com.fasterxml.jackson.databind.JsonNode;
import io.rdmamon.dashboards.GrafanaQueries.Outcome;
import io.rdmamon.influx.InfluxQl;
import io.rdmamon.influx.InfluxSettings;
import io.rdmamon.model.Json;
import io.rdmamon.sink.SinkConfig;
import io.rdmamon.testing.ScenarioDatabase;
import org.influxdb.InfluxDB;
import org.influxdb.InfluxDBException;
import org.influxdb.InfluxDBFactory;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Testcontainers;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The 1.x dashboard test on InfluxDB 2.7 and 3 Core: the same {@code ClusterScenario} through the same pipeline (Kafka
 * topics, the real sink, the v1 write API) into a server set up as docs/influxdb.md tells operators to, the 1-minute
 * rollups InfluxDB 1.x computes for it copied in ({@link RollupCopy}: neither server runs continuous queries), then
 * every dashboard, variable, annotation and alert-rule query ({@link GrafanaQueries}) must return data there too.
 * Where a server is documented to behave differently, the difference is asserted by name, so that the day it
 * changes, this test says so. Skipped where no Docker engine runs (the project's own build machines: never run there).
 */
@Testcontainers(disabledWithoutDocker = true)
class InfluxCompatibilityContainersTest {
    private static final String DATABASE = "rdmamon";
    private static final String RAW_RP = "rp_raw";
    private static final String ROLLUP_RP = "rp_1y";
    private static final String ORG = "rdmamon";
    private static final String ADMIN_TOKEN = "rdmamon-test-admin-token";
    /** {@code samples} exists only in rollup points: data here means the rollups were read, not the raw points. */
    private static final String ROLLUP_PROBE = "SELECT count(\"samples\") FROM \"" + ROLLUP_RP + "\".\"link_health\"";

    /**
     * InfluxDB 3 Core drops the retention policy of {@code FROM "rp_1y"."link_health"} (a qualifier without a
     * database) and reads the request's database: the capacity dashboard's rollup queries return data, computed from
     * raw points. Rollups written with {@code rp=rp_1y} land in database {@code rdmamon/rp_1y}, which a query reaches
     * only with that database in the request. Sources:
     * https://docs.influxdata.com/influxdb3/core/reference/influxql/select/#from-clause (retention policies are not
     * part of the data model; "database_name/retention_policy" naming), and influxdata/influxdb
     * influxdb3_server/src/http.rs {@code query_influxql_inner} with iox_query_influxql_rewrite
     * {@code Rewritten::resolve_dbrp} (a retention policy without a database resolves to no database).
     */
    static final String RP_QUALIFIER_IGNORED_BY_3_CORE = "3 Core reads FROM \"rp_1y\".<m> from the request's database";

    @Test
    void shouldAnswerEveryDashboardQueryWhenTheScenarioIsSunkIntoInfluxDb27() throws Exception {
        try (GenericContainer<?> influx = new GenericContainer<>("influxdb:2.7")
                .withExposedPorts(8086)
                .withEnv("DOCKER_INFLUXDB_INIT_MODE", "setup")
                .withEnv("DOCKER_INFLUXDB_INIT_USERNAME", "rdmamon")
                .withEnv("DOCKER_INFLUXDB_INIT_PASSWORD", "rdmamon-password")
                .withEnv("DOCKER_INFLUXDB_INIT_ORG", ORG)
                .withEnv("DOCKER_INFLUXDB_INIT_BUCKET", "setup")
                .withEnv("DOCKER_INFLUXDB_INIT_ADMIN_TOKEN", ADMIN_TOKEN)
                .waitingFor(Wait.forHttp("/ping").forStatusCode(204))) {
            influx.start();
            // docs/influxdb.md, "InfluxDB 2.x": a bucket per retention, DBRP mappings (raw the default), a sink token
            String raw = influxCli(influx, "bucket", "create", "--name", "rdmamon_raw", "--retention", "7d", "--json")
                    .path("id").asText();
            String rollup = influxCli(influx, "bucket", "create", "--name", "rdmamon_1y", "--retention", "365d",
                    "--json").path("id").asText();
            influxCli(influx, "v1", "dbrp", "create", "--db", DATABASE, "--rp", RAW_RP, "--bucket-id", raw,
                    "--default");
            influxCli(influx, "v1", "dbrp", "create", "--db", DATABASE, "--rp", ROLLUP_RP, "--bucket-id", rollup);
            String sinkToken = influxCli(influx, "auth", "create", "--description", "rdmamon-sink",
                    "--write-bucket", raw, "--read-bucket", raw, "--json").path("token").asText();
            String url = "http://" + influx.getHost() + ":" + influx.getMappedPort(8086);

            // Grafana's datasource reads with a token of its own; the admin token stands in for it
            try (InfluxDB reader = new SinkConfig(Map.of(InfluxSettings.URL_CONFIG, url,
                    InfluxSettings.TOKEN_CONFIG, ADMIN_TOKEN)).influx().connect()) {
                List<Outcome> outcomes = loadAndQuery(Map.of(InfluxSettings.URL_CONFIG, url,
                        InfluxSettings.TOKEN_CONFIG, sinkToken), reader, RAW_RP);

                assertThat(GrafanaQueries.withoutData(outcomes)).as("queries without data on 2.7").isEmpty();
                assertThat(returnsData(reader, DATABASE, ROLLUP_PROBE)).as("rollups through the rp_1y mapping")
                        .isTrue();
            }
        }
    }

    @Test
    void shouldAnswerEveryDashboardQueryWhenTheScenarioIsSunkIntoInfluxDb3Core() throws Exception {
        try (GenericContainer<?> influx = new GenericContainer<>("influxdb:3-core")
                .withExposedPorts(8181)
                .withCommand("influxdb3", "serve", "--node-id", "rdmamon-test", "--object-store", "memory",
                        "--without-auth")
                .waitingFor(Wait.forHttp("/health").forStatusCode(200))) {
            influx.start();
            // docs/influxdb.md, "InfluxDB 3 Core": the database, and a sink that sends no retention policy
            exec(influx, "influxdb3", "create", "database", "--retention-period", "7d", DATABASE);
            String url = "http://" + influx.getHost() + ":" + influx.getMappedPort(8181);

            try (InfluxDB reader = InfluxDBFactory.connect(url)) {
                List<Outcome> outcomes = loadAndQuery(Map.of(InfluxSettings.URL_CONFIG, url,
                        InfluxSettings.RETENTION_POLICY_CONFIG, ""), reader, null);

                assertThat(GrafanaQueries.withoutData(outcomes)).as("queries without data on 3 Core").isEmpty();
                assertThat(returnsData(reader, DATABASE, ROLLUP_PROBE)).as(RP_QUALIFIER_IGNORED_BY_3_CORE).isFalse();
                assertThat(returnsData(reader, DATABASE + "/" + ROLLUP_RP,
                        "SELECT count(\"samples\") FROM \"link_health\"")).as("rollups in database rdmamon/rp_1y")
                        .isTrue();
            }
        }
    }

    /**
     * The scenario InfluxDB 1.x holds, sunk again into the container with {@code sink} settings (raw points counted
     * under {@code rawRp}), its rollups copied with {@code rp=rp_1y}, then every Grafana query run there.
     */
    private static List<Outcome> loadAndQuery(Map<String, Object> sink, InfluxDB reader, String rawRp) {
        ScenarioDatabase reference = ScenarioDatabase.fresh();
        Map<String, Object> settings = new HashMap<>(sink);
        settings.put(InfluxSettings.DATABASE_CONFIG, DATABASE);
        ScenarioDatabase.sinkInto(reference.scenario, settings, reader, rawRp);
        int rollups = RollupCopy.copy(reference.client, reference.database(),
                reference.settings.rollupRetentionPolicy(), reader, DATABASE, ROLLUP_RP);
        assertThat(rollups).isPositive();
        return new GrafanaQueries(q -> InfluxQl.execute(reader, DATABASE, q), System.currentTimeMillis()).runAll();
    }

    private static boolean returnsData(InfluxDB influx, String database, String query) {
        try {
            return GrafanaQueries.hasData(InfluxQl.execute(influx, database, query));
        } catch (InfluxDBException e) {
            return false;
        }
    }

    /** The {@code influx} CLI inside the 2.7 container, as the admin; its JSON output when asked with --json. */
    private static JsonNode influxCli(GenericContainer<?> influx, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("influx"));
        command.addAll(List.of(args));
        command.addAll(List.of("--host", "http://localhost:8086", "--org", ORG, "--token", ADMIN_TOKEN));
        String out = exec(influx, command.toArray(String[]::new));
        try {
            return List.of(args).contains("--json") ? Json.MAPPER.readTree(out) : Json.MAPPER.nullNode();
        } catch (IOException e) {
            throw new AssertionError(String.join(" ", args) + " printed no JSON: " + out, e);
        }
    }

    private static String exec(GenericContainer<?> container, String... command) throws Exception {
        ExecResult result = container.execInContainer(command);
        if (result.getExitCode() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed (" + result.getExitCode() + "): "
                    + result.getStderr() + result.getStdout());
        }
        return result.getStdout();
    }
}
