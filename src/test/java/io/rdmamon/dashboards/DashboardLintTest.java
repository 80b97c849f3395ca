package io.rdmamon.dashboards;

import com.fasterxml.jackson.databind.JsonNode;
import io.rdmamon.capacity.CapacityQueries;
import io.rdmamon.config.Durations;
import io.rdmamon.dashboards.GrafanaFiles.Dashboard;
import io.rdmamon.influx.InfluxSettings;
import io.rdmamon.influx.MeasurementSpec;
import io.rdmamon.influx.Schema;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** Static checks of dashboards/: what Grafana would refuse or show wrongly, and what would drift from the schema. */
class DashboardLintTest {
    private static final Pattern FROM = Pattern.compile("FROM (?:\"[^\"]+\"\\.)?\"([a-z_]+)\"");
    private static final Set<String> GRAFANA_BUILT_IN = Set.of("-- Grafana --", "__expr__");

    @Test
    void shouldHaveTheFourDashboardsWithUniqueUidsAndACurrentSchema() {
        List<Dashboard> dashboards = GrafanaFiles.dashboards();

        assertThat(dashboards).extracting(Dashboard::uid).doesNotHaveDuplicates()
                .containsExactlyInAnyOrder("rdmamon-cluster", "rdmamon-job", "rdmamon-links", "rdmamon-capacity");
        assertThat(dashboards).allSatisfy(d -> {
            assertThat(d.json().path("title").asText()).startsWith("rdmamon / ");
            assertThat(d.json().path("schemaVersion").asInt()).isBetween(36, 41);
            assertThat(d.json().path("id").isMissingNode() || d.json().path("id").isNull()).as(d.file() + " id")
                    .isTrue();
        });
    }

    @Test
    void shouldGiveEveryPanelAUniqueIdAndAPlaceInsideTheGridWithoutOverlaps() {
        for (Dashboard d : GrafanaFiles.dashboards()) {
            List<JsonNode> panels = d.panels();
            assertThat(panels).as(d.uid()).extracting(p -> p.path("id").asInt()).doesNotHaveDuplicates()
                    .allSatisfy(id -> assertThat(id).isPositive());
            List<int[]> boxes = new ArrayList<>();
            for (JsonNode p : panels) {
                JsonNode g = p.path("gridPos");
                int x = g.path("x").asInt(-1), y = g.path("y").asInt(-1), w = g.path("w").asInt(0),
                        h = g.path("h").asInt(0);
                String what = d.uid() + " panel " + p.path("id").asInt() + " " + g;
                assertThat(x).as(what).isBetween(0, 23);
                assertThat(y).as(what).isNotNegative();
                assertThat(w).as(what).isBetween(1, 24 - x);
                assertThat(h).as(what).isPositive();
                for (int[] b : boxes) {
                    boolean overlaps = x < b[0] + b[2] && b[0] < x + w && y < b[1] + b[3] && b[1] < y + h;
                    assertThat(overlaps).as(what + " overlaps panel " + b[4]).isFalse();
                }
                boxes.add(new int[]{x, y, w, h, p.path("id").asInt()});
            }
        }
    }

    @Test
    void shouldQueryOnlyProvisionedDatasourcesWithRawInfluxQl() {
        Set<String> provisioned = datasourceUids();
        for (Dashboard d : GrafanaFiles.dashboards()) {
            List<String> used = new ArrayList<>();
            collectDatasourceUids(d.json(), used);
            assertThat(used).as(d.uid()).isNotEmpty().allSatisfy(uid -> assertThat(provisioned).contains(uid));
            for (JsonNode p : d.panels()) {
                if (p.path("type").asText().equals("row")) {
                    continue;
                }
                assertThat(p.path("targets")).as(d.uid() + " panel " + p.path("title")).isNotEmpty()
                        .allSatisfy(t -> {
                            assertThat(t.path("rawQuery").asBoolean()).isTrue();
                            assertThat(t.path("query").asText()).startsWith("SELECT ");
                            assertThat(t.path("resultFormat").asText()).isIn("time_series", "table");
                        });
                assertThat(p.path("targets")).extracting(t -> t.path("refId").asText()).doesNotHaveDuplicates();
            }
        }
    }

    @Test
    void shouldNameOnlyMeasurementsOfTheSchemaInEveryQuery() {
        Set<String> measurements = new HashSet<>();
        Schema.ALL.stream().map(MeasurementSpec::name).forEach(measurements::add);
        List<String> queries = new ArrayList<>();
        GrafanaFiles.queries().forEach(q -> queries.add(q.query()));
        alertRules().forEach(r -> r.path("data").forEach(d -> {
            if (d.path("model").has("query")) {
                queries.add(d.path("model").path("query").asText());
            }
        }));
        for (String query : queries) {
            Matcher m = FROM.matcher(query);
            List<String> named = new ArrayList<>();
            while (m.find()) {
                named.add(m.group(1));
            }
            assertThat(named).as(query).allSatisfy(name -> assertThat(measurements).contains(name));
        }
    }

    @Test
    void shouldProvisionAnInfluxQlDatasourceWithItsSecretsOutsideTheFile() {
        JsonNode files = GrafanaFiles.yaml("datasources/rdmamon-influxdb.yaml");
        JsonNode token = GrafanaFiles.yaml("examples/datasource-influxdb-token.yaml");

        for (JsonNode file : List.of(files, token)) {
            assertThat(file.path("apiVersion").asInt()).isEqualTo(1);
            JsonNode ds = file.path("datasources").get(0);
            assertThat(ds.path("uid").asText()).isEqualTo("rdmamon-influx");
            assertThat(ds.path("type").asText()).isEqualTo("influxdb");
            assertThat(ds.path("url").asText()).isEqualTo("${INFLUX_URL}");
            assertThat(ds.path("jsonData").path("version").asText()).isEqualTo("InfluxQL");
            assertThat(ds.path("jsonData").path("httpMode").asText()).isEqualTo("POST");
            assertThat(ds.path("jsonData").path("dbName").asText()).isEqualTo(InfluxSettings.DEFAULT_DATABASE);
            assertThat(Durations.parse(ds.path("jsonData").path("timeInterval").asText()))
                    .isEqualTo(GrafanaTemplate.DATASOURCE_MIN_INTERVAL);
            assertThat(ds.has("password") || ds.has("basicAuthPassword")).isFalse();
            ds.path("secureJsonData").forEach(secret -> assertThat(secret.asText()).matches(".*\\$\\{[A-Z_]+}"));
        }
        assertThat(files.path("datasources").get(0).path("secureJsonData").path("password").asText())
                .isEqualTo("${INFLUX_PASSWORD}");
        assertThat(token.path("datasources").get(0).path("secureJsonData").path("httpHeaderValue1").asText())
                .isEqualTo("Token ${INFLUX_TOKEN}");
    }

    @Test
    void shouldLoadTheDashboardsIntoTheAlertRulesFolderFoundByName() {
        JsonNode provider = GrafanaFiles.yaml("dashboards/rdmamon.yaml").path("providers").get(0);
        Set<String> ruleFolders = new HashSet<>();
        GrafanaFiles.yaml("alerting/rules.yaml").path("groups")
                .forEach(g -> ruleFolders.add(g.path("folder").asText()));

        assertThat(provider.path("type").asText()).isEqualTo("file");
        assertThat(provider.path("options").path("path").asText()).isNotBlank();
        // Grafana provisions alert rules first and creates their folder by name with a generated uid: a provider
        // with a fixed folderUid would create a second folder of the same name instead of finding that one
        assertThat(ruleFolders).containsExactly(provider.path("folder").asText());
        assertThat(provider.has("folderUid")).as("folderUid").isFalse();
    }

    @Test
    void shouldDefineCompleteAlertRulesOnProvisionedDatasources() {
        Set<String> datasources = datasourceUids();
        Map<String, Set<String>> panelIds = new HashMap<>();
        GrafanaFiles.dashboards().forEach(d -> d.panels()
                .forEach(p -> panelIds.computeIfAbsent(d.uid(), k -> new HashSet<>()).add(p.path("id").asText())));
        List<JsonNode> rules = alertRules();

        assertThat(rules).extracting(r -> r.path("uid").asText()).doesNotHaveDuplicates().containsExactlyInAnyOrder(
                "rdmamon-stalled-sync", "rdmamon-link-down", "rdmamon-link-degraded", "rdmamon-link-idle",
                "rdmamon-collector-silent", "rdmamon-tcp-fallback", "rdmamon-gpu-lost", "rdmamon-gpu-idle");
        assertThat(rules).allSatisfy(r -> {
            String uid = r.path("uid").asText();
            assertThat(r.path("title").asText()).as(uid).isNotBlank();
            assertThat(Durations.parse(r.path("for").asText())).as(uid).isGreaterThanOrEqualTo(Duration.ZERO);
            assertThat(r.path("labels").path("severity").asText()).as(uid).isIn("critical", "warning", "info");
            assertThat(r.path("annotations").path("summary").asText()).as(uid).isNotBlank();
            assertThat(r.path("noDataState").asText()).as(uid).isIn("OK", "NoData", "Alerting");
            assertThat(r.path("execErrState").asText()).as(uid).isIn("OK", "Error", "Alerting");
            assertThat(panelIds).as(uid + " __dashboardUid__ / __panelId__ (Grafana rejects one without the other)")
                    .containsKey(r.path("annotations").path("__dashboardUid__").asText());
            assertThat(panelIds.get(r.path("annotations").path("__dashboardUid__").asText())).as(uid)
                    .contains(r.path("annotations").path("__panelId__").asText());
            Set<String> refIds = new HashSet<>();
            r.path("data").forEach(d -> {
                refIds.add(d.path("refId").asText());
                assertThat(d.path("model").path("refId").asText()).isEqualTo(d.path("refId").asText());
                String ds = d.path("datasourceUid").asText();
                assertThat(ds).as(uid).isIn(concat(datasources, Set.of("__expr__")));
                if (!ds.equals("__expr__")) {
                    assertThat(d.path("relativeTimeRange").path("from").asLong()).as(uid).isPositive();
                    assertThat(d.path("model").path("query").asText()).as(uid).startsWith("SELECT ");
                }
            });
            assertThat(refIds).as(uid).contains(r.path("condition").asText());
            r.path("data").forEach(d -> {
                if (d.path("model").has("expression")) {
                    assertThat(refIds).as(uid).contains(d.path("model").path("expression").asText());
                }
            });
        });
    }

    @Test
    void shouldRouteAlertsToTheProvisionedWebhook() {
        JsonNode contactPoints = GrafanaFiles.yaml("alerting/contact-points.yaml");
        JsonNode policies = GrafanaFiles.yaml("alerting/policies.yaml");
        Set<String> receivers = new HashSet<>();
        contactPoints.path("contactPoints").forEach(c -> receivers.add(c.path("name").asText()));
        JsonNode webhook = contactPoints.path("contactPoints").get(0).path("receivers").get(0);
        List<String> routed = new ArrayList<>();
        JsonNode root = policies.path("policies").get(0);
        routed.add(root.path("receiver").asText());
        root.path("routes").forEach(r -> routed.add(r.path("receiver").asText()));

        assertThat(webhook.path("type").asText()).isEqualTo("webhook");
        assertThat(webhook.path("settings").path("url").asText()).isEqualTo("${ALERT_WEBHOOK_URL}");
        assertThat(routed).allSatisfy(r -> assertThat(receivers).contains(r));
        assertThat(GrafanaFiles.yamlFiles()).allSatisfy(
                f -> assertThat(GrafanaFiles.readYaml(f).path("apiVersion").asInt()).as(f.toString()).isEqualTo(1));
    }

    /**
     * One path pages, the other shows (docs/runbook.md, "Which alert path pages"): the stream app's alerts reach
     * Alertmanager through rdmamon alerts; Grafana's rules for the same conditions must not notify too. Each rule is
     * routed the way Grafana routes it (the first matching child of the root, else the root) and must land on a route
     * muted all day, every day, by a provisioned mute timing; and each rule carries the stream app's severity for its
     * condition, so the two paths show one picture.
     */
    @Test
    void shouldShowGrafanasRulesWithoutPagingTwiceBesideTheStreamApp() {
        Map<String, String> streamAppSeverity = Map.of(
                "rdmamon-stalled-sync", "critical",        // StallDetector, GpuActivity
                "rdmamon-link-down", "critical",           // LinkDownDetector on a port a job holds
                "rdmamon-link-degraded", "warning",        // LinkDegradedDetector
                "rdmamon-link-idle", "info",               // LinkIdleDetector
                "rdmamon-collector-silent", "warning",     // CollectorSilenceDetector
                "rdmamon-tcp-fallback", "warning",         // TcpFallbackDetector
                "rdmamon-gpu-lost", "critical",            // GpuLostDetector, a GPU a Running job holds
                "rdmamon-gpu-idle", "warning");            // GpuIdleDetector
        Set<String> allDay = new HashSet<>();
        GrafanaFiles.yaml("alerting/mute-timings.yaml").path("muteTimes").forEach(m -> {
            JsonNode intervals = m.path("time_intervals");
            boolean coversEveryMinute = intervals.size() > 0 && java.util.stream.StreamSupport
                    .stream(intervals.spliterator(), false).anyMatch(i -> !i.has("weekdays") && !i.has("days_of_month")
                            && !i.has("months") && !i.has("years") && i.path("times").size() == 1
                            && i.path("times").get(0).path("start_time").asText().equals("00:00")
                            && i.path("times").get(0).path("end_time").asText().equals("24:00"));
            if (coversEveryMinute) {
                allDay.add(m.path("name").asText());
            }
        });
        JsonNode root = GrafanaFiles.yaml("alerting/policies.yaml").path("policies").get(0);

        assertThat(allDay).as("a provisioned mute timing covering every minute").isNotEmpty();
        for (JsonNode rule : alertRules()) {
            String uid = rule.path("uid").asText();
            Map<String, String> labels = new HashMap<>();
            rule.path("labels").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
            labels.put("alertname", rule.path("title").asText());
            labels.put("grafana_folder", "rdmamon");
            JsonNode route = root;
            for (JsonNode child : root.path("routes")) {
                if (matches(child, labels)) {
                    route = child;
                    break;
                }
            }
            List<String> mutes = new ArrayList<>();
            route.path("mute_time_intervals").forEach(m -> mutes.add(m.asText()));
            assertThat(mutes).as(uid + ": its route must be muted by an all-day mute timing, or it pages a second time "
                    + "beside the stream app's alert").containsAnyElementsOf(allDay);
            assertThat(labels.get("severity")).as(uid + ": the stream app's severity for the same condition")
                    .isEqualTo(streamAppSeverity.get(uid));
        }
    }

    private static boolean matches(JsonNode route, Map<String, String> labels) {
        for (JsonNode m : route.path("object_matchers")) {
            String value = labels.getOrDefault(m.get(0).asText(), "");
            String operand = m.get(2).asText();
            boolean ok = switch (m.get(1).asText()) {
                case "=" -> value.equals(operand);
                case "!=" -> !value.equals(operand);
                case "=~" -> value.matches(operand);
                case "!~" -> !value.matches(operand);
                default -> throw new AssertionError("unknown matcher " + m);
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    @Test
    void shouldShowTheSameStatisticsInTheCapacityDashboardAsTheCapacityReport() {
        List<String> dashboard = GrafanaFiles.queries().stream()
                .filter(q -> q.dashboard().uid().equals("rdmamon-capacity")).map(GrafanaFiles.PanelQuery::query)
                .toList();
        CapacityQueries week = new CapacityQueries("$rollup_rp", Duration.ofDays(7));
        CapacityQueries month = new CapacityQueries("$rollup_rp", Duration.ofDays(30));

        assertThat(dashboard).contains(week.linkPercentiles(), month.linkPercentiles(), week.nodePercentiles(),
                month.nodePercentiles(),
                // panels over the dashboard's time range: $timeFilter and the idle threshold variable instead
                week.idleLinks(0.01).replace("time > now() - 7d", "$timeFilter").replace("0.01", "$idle_threshold"),
                week.jobDemand().replace("time > now() - 7d", "$timeFilter"),
                week.jobRdmaUse().replace("time > now() - 7d", "$timeFilter"));
    }

    @Test
    void shouldDocumentTheCapacityQueriesExactlyAsTheReportRunsThem() throws Exception {
        String docs = Files.readString(Path.of("docs", "dashboards.md"));
        CapacityQueries q = new CapacityQueries("rp_1y", Duration.ofDays(7));

        assertThat(docs).contains(q.linkPercentiles(), q.linkPeakHour(), q.nodePercentiles(), q.nodePeakHour(),
                q.idleLinks(0.01), q.jobNames(), q.jobDemand(), q.hourlyThroughput(), q.jobRdmaUse());
    }

    private static Set<String> datasourceUids() {
        Set<String> uids = new HashSet<>();
        GrafanaFiles.yamlFiles().stream().filter(f -> f.startsWith(GrafanaFiles.PROVISIONING.resolve("datasources")))
                .forEach(f -> GrafanaFiles.readYaml(f).path("datasources")
                        .forEach(ds -> uids.add(ds.path("uid").asText())));
        assertThat(uids).isNotEmpty();
        return uids;
    }

    private static List<JsonNode> alertRules() {
        List<JsonNode> rules = new ArrayList<>();
        GrafanaFiles.yaml("alerting/rules.yaml").path("groups").forEach(g -> {
            assertThat(g.path("folder").asText()).isNotBlank();
            assertThat(Durations.parse(g.path("interval").asText())).isPositive();
            g.path("rules").forEach(rules::add);
        });
        return rules;
    }

    private static void collectDatasourceUids(JsonNode node, List<String> out) {
        if (node.isObject()) {
            JsonNode ds = node.get("datasource");
            if (ds != null && ds.isObject() && ds.has("uid") && !GRAFANA_BUILT_IN.contains(ds.path("uid").asText())) {
                out.add(ds.path("uid").asText());
            }
            node.forEach(child -> collectDatasourceUids(child, out));
        } else if (node.isArray()) {
            node.forEach(child -> collectDatasourceUids(child, out));
        }
    }

    private static Set<String> concat(Set<String> a, Set<String> b) {
        Set<String> out = new HashSet<>(a);
        out.addAll(b);
        return out;
    }
}
