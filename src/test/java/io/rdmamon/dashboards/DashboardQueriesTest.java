package io.rdmamon.dashboards;

import io.rdmamon.dashboards.GrafanaFiles.Dashboard;
import io.rdmamon.dashboards.GrafanaFiles.PanelQuery;
import io.rdmamon.dashboards.GrafanaQueries.Outcome;
import io.rdmamon.influx.InfluxQl;
import io.rdmamon.model.JobBandwidth;
import io.rdmamon.testing.ClusterScenario;
import io.rdmamon.testing.ScenarioDatabase;
import org.influxdb.dto.QueryResult;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Every query of every dashboard (panel targets, annotations, template variables) and every alert rule query,
 * interpolated as Grafana would ({@link GrafanaQueries}), run against a real influxd holding the
 * {@link ClusterScenario} written by the real sink: each must succeed and return data. A query naming a measurement,
 * field, tag or retention policy the sink does not write, or InfluxQL that InfluxDB 1.x rejects, fails here. The
 * panels that name incidents are checked to name exactly the scenario's. The same queries run against InfluxDB 2.7
 * and 3 Core in {@link InfluxCompatibilityContainersTest}.
 */
class DashboardQueriesTest {
    private static ScenarioDatabase db;
    private static GrafanaQueries queries;

    @BeforeAll
    static void loadScenario() {
        db = ScenarioDatabase.fresh();
        // Grafana's "now": after the scenario's last record
        queries = new GrafanaQueries(q -> InfluxQl.execute(db.client, db.database(), q), System.currentTimeMillis());
    }

    @Test
    void shouldReturnDataForEveryDashboardQueryWhenTheScenarioIsLoaded() {
        List<Outcome> outcomes = queries.runAll();

        assertThat(outcomes).hasSizeGreaterThanOrEqualTo(50 + GrafanaFiles.alertRuleQueries().size());
        assertThat(GrafanaQueries.withoutData(outcomes)).as("queries without data").isEmpty();
    }

    @Test
    void shouldSelectTheVariablesGrafanaSelectsOnFirstLoad() {
        GrafanaTemplate job = queries.template(dashboard("rdmamon-job"));
        GrafanaTemplate links = queries.template(dashboard("rdmamon-links"));
        GrafanaTemplate capacity = queries.template(dashboard("rdmamon-capacity"));

        assertThat(job.interpolate("$namespace $job", "now-1h", null)).isEqualTo("(llm|research|vision) bert-large");
        assertThat(links.interpolate("$node [[device]]", "now-1h", null))
                .isEqualTo("(gpu-01|gpu-02|gpu-03|gpu-04|gpu-05) (mlx5_0|mlx5_1|mlx5_2)");
        assertThat(capacity.interpolate("${rollup_rp} $idle_threshold", "now-1h", null)).isEqualTo("rp_1y 0.01");
    }

    @Test
    void shouldNameExactlyTheScenarioIncidentsWhenPanelsListProblems() {
        assertThat(seriesTags("rdmamon-cluster", "Ports not ACTIVE: latest state"))
                .containsExactly(Map.of("node", "gpu-03", "device", "mlx5_2", "port", "1"));
        assertThat(seriesTags("rdmamon-cluster", "Silent collectors: nodes"))
                .containsExactly(Map.of("node", ClusterScenario.SILENT_NODE));
        assertThat(seriesTags("rdmamon-capacity", "Allocated but idle links")).containsExactly(Map.of(
                "node", "gpu-02", "device", "mlx5_1", "port", "1", "namespace", "vision", "job_uid", "uid-resnet"));
        assertThat(seriesTags("rdmamon-links", "State changes"))
                .containsExactly(Map.of("node", "gpu-03", "device", "mlx5_2", "port", "1"));

        Map<String, Object> openByType = new HashMap<>();
        series("rdmamon-cluster", "Alerts open now by type")
                .forEach(s -> openByType.put(s.getTags().get("type"), s.getValues().get(0).get(1)));
        assertThat(openByType).containsOnly(Map.entry("STALLED_SYNC", 0.0), Map.entry("STRAGGLER", 0.0),
                Map.entry("LINK_DEGRADED", 0.0), Map.entry("LINK_DOWN", 1.0), Map.entry("LINK_IDLE", 1.0),
                Map.entry("COLLECTOR_SILENT", 1.0), Map.entry("TCP_FALLBACK", 0.0), Map.entry("GPU_LOST", 0.0),
                Map.entry("GPU_IDLE", 0.0));
    }

    @Test
    void shouldShowTheJobsRdmaShareAndItsPeakPerNicAgainstTheExpectedFigure() {
        // the job Grafana selects on first load; its windows all lie in the dashboard's default 3 hours
        List<JobBandwidth> bert = db.scenario.jobBandwidth.stream().filter(b -> b.job().equals("bert-large")).toList();
        double peakNic = bert.stream().mapToDouble(JobBandwidth::nicBytesPerSec).max().orElseThrow();

        QueryResult.Series share = series("rdmamon-job", "RDMA share").get(0);
        List<Double> shares = share.getValues().stream().map(row -> (Double) row.get(1)).filter(v -> v != null)
                .toList();
        // 0 while the job stalled (no RDMA traffic, eth0 at its background), above 99 % while it trained
        assertThat(shares).isNotEmpty().allSatisfy(v -> assertThat(v).isBetween(0.0, 1.0));
        assertThat(shares.stream().mapToDouble(Double::doubleValue).min().orElseThrow()).isEqualTo(0.0);
        assertThat(shares.stream().mapToDouble(Double::doubleValue).max().orElseThrow()).isGreaterThan(0.99);

        QueryResult.Series peak = series("rdmamon-job", "RDMA per NIC: peak vs expected").get(0);
        assertThat(peak.getColumns()).containsExactly("time", "peak per NIC", "expected per NIC", "of expected");
        List<Object> row = peak.getValues().get(0);
        assertThat((Double) row.get(1)).isCloseTo(peakNic, within(1.0));
        assertThat((Double) row.get(2)).isEqualTo(ClusterScenario.EXPECTED_NIC);
        assertThat((Double) row.get(3)).isCloseTo(peakNic / ClusterScenario.EXPECTED_NIC, within(1e-9));
    }

    @Test
    void shouldShowOnlyTheJobsGpusBesideItsBandwidth() {
        GrafanaTemplate job = queries.template(dashboard("rdmamon-job"));
        assertThat(job.interpolate("$node", "now-1h", null)).isEqualTo("(gpu-03|gpu-04)");

        // bert-large's GPUs are busy (95 %) or waiting in a collective (100 %, no memory traffic); the other nodes'
        // GPUs, at 50 %, must not show
        QueryResult.Series utilization = series("rdmamon-job", "GPU utilization").get(0);
        assertThat(utilization.getColumns()).containsExactly("time", "least busy GPU", "mean",
                "most memory traffic");
        List<Double> leastBusy = column(utilization, 1);
        assertThat(leastBusy).isNotEmpty().allSatisfy(v -> assertThat(v).isBetween(95.0, 100.0));
        assertThat(leastBusy).contains(100.0);
        assertThat(column(utilization, 3)).contains(0.0, 30.0);

        QueryResult.Series power = series("rdmamon-job", "GPU power").get(0);
        assertThat(power.getColumns()).containsExactly("time", "mean per GPU", "highest GPU");
        assertThat(column(power, 2)).isNotEmpty().allSatisfy(v -> assertThat(v).isIn(120.0, 400.0));

        // each rank's processes beside its GPU: a line per node and GPU of the job, CPU and bytes
        List<QueryResult.Series> cpu = series("rdmamon-job", "Rank processes: CPU");
        assertThat(cpu).extracting(s -> s.getTags().get("node")).containsOnly("gpu-03", "gpu-04");
        assertThat(cpu).hasSize(4);
        assertThat(cpu).allSatisfy(s -> assertThat(column(s, 1)).isNotEmpty().contains(1.0, 1.6));
        List<QueryResult.Series> io = series("rdmamon-job", "Rank processes: I/O");
        assertThat(io).hasSize(4).allSatisfy(s -> {
            assertThat(s.getColumns()).containsExactly("time", "read", "written");
            assertThat(column(s, 1)).contains(0.0, 2.0e6);
        });
    }

    private static List<Double> column(QueryResult.Series series, int index) {
        return series.getValues().stream().map(row -> (Double) row.get(index)).filter(v -> v != null).toList();
    }

    private List<Map<String, String>> seriesTags(String uid, String title) {
        return series(uid, title).stream().map(s -> s.getTags() == null ? Map.<String, String>of() : s.getTags())
                .toList();
    }

    /** The series of the first query of the panel titled {@code title}. */
    private List<QueryResult.Series> series(String uid, String title) {
        PanelQuery q = GrafanaFiles.queries().stream()
                .filter(p -> p.dashboard().uid().equals(uid) && p.where().contains("'" + title + "' A"))
                .findFirst().orElseThrow(() -> new AssertionError("no panel '" + title + "' in " + uid));
        List<QueryResult.Series> series = queries.run(q).getResults().get(0).getSeries();
        return series == null ? List.of() : series;
    }

    private static Dashboard dashboard(String uid) {
        return GrafanaFiles.dashboards().stream().filter(d -> d.uid().equals(uid)).findFirst().orElseThrow();
    }
}
