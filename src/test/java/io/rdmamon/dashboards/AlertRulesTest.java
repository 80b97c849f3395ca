package io.rdmamon.dashboards;

import com.fasterxml.jackson.databind.JsonNode;
import io.rdmamon.influx.InfluxQl;
import io.rdmamon.testing.ClusterScenario;
import io.rdmamon.testing.ScenarioDatabase;
import org.influxdb.dto.QueryResult;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The provisioned Grafana alert rules evaluated the way Grafana evaluates them, on the {@link ClusterScenario} in a
 * real influxd: query A over the rule's relative time range, one instance per series, B = reduce, C = threshold. Each
 * rule's query must return series, and exactly the scenario's open incidents must fire.
 */
class AlertRulesTest {
    private static ScenarioDatabase db;

    @BeforeAll
    static void loadScenario() {
        db = ScenarioDatabase.fresh();
    }

    @Test
    void shouldFireExactlyForTheScenarioIncidentsThatAreStillOpen() {
        Map<String, Map<Map<String, String>, Boolean>> byRule = new LinkedHashMap<>();
        for (JsonNode rule : GrafanaFiles.alertRules()) {
            byRule.put(rule.path("uid").asText(), evaluate(rule));
        }

        assertThat(byRule).allSatisfy((uid, instances) -> assertThat(instances).as(uid).isNotEmpty());
        assertThat(firing(byRule.get("rdmamon-link-down")))
                .containsExactly(Map.of("node", "gpu-03", "device", "mlx5_2", "port", "1"));
        assertThat(firing(byRule.get("rdmamon-collector-silent")))
                .containsExactly(Map.of("node", ClusterScenario.SILENT_NODE));
        assertThat(firing(byRule.get("rdmamon-link-idle"))).containsExactly(Map.of("node", "gpu-02", "device",
                "mlx5_1", "port", "1", "namespace", "vision", "job_uid", "uid-resnet"));
        // the stall and the degradation were resolved: their instances exist and do not fire
        assertThat(byRule.get("rdmamon-stalled-sync"))
                .containsExactly(Map.entry(Map.of("namespace", "research", "job", "bert-large"), false));
        assertThat(byRule.get("rdmamon-tcp-fallback"))
                .containsExactly(Map.entry(Map.of("namespace", "vision", "job", "resnet-50"), false));
        assertThat(byRule.get("rdmamon-gpu-lost"))
                .containsExactly(Map.entry(Map.of("node", "gpu-03", "device", "GPU-gpu-03-0"), false));
        assertThat(byRule.get("rdmamon-gpu-idle"))
                .containsExactly(Map.entry(Map.of("namespace", "research", "job", "bert-large"), false));
        assertThat(byRule.get("rdmamon-link-degraded"))
                .containsExactly(Map.entry(Map.of("node", "gpu-03", "device", "mlx5_0", "port", "1"), false));
        // every node seen is judged; the ports of the silent node are left to the collector-silent rule
        assertThat(byRule.get("rdmamon-collector-silent")).hasSize(5);
        assertThat(byRule.get("rdmamon-link-down")).hasSize(ClusterScenario.LINKS.size() - 2);
    }

    /** Instance labels → whether the condition holds, for a rule of the shape A (query), B (reduce), C (threshold). */
    private static Map<Map<String, String>, Boolean> evaluate(JsonNode rule) {
        Map<String, JsonNode> steps = new HashMap<>();
        rule.path("data").forEach(d -> steps.put(d.path("refId").asText(), d));
        JsonNode condition = steps.get(rule.path("condition").asText()).path("model");
        assertThat(condition.path("type").asText()).isEqualTo("threshold");
        JsonNode reduce = steps.get(condition.path("expression").asText()).path("model");
        assertThat(reduce.path("type").asText()).isEqualTo("reduce");
        JsonNode query = steps.get(reduce.path("expression").asText());

        String influxQl = GrafanaFiles.RuleQuery.of(rule, query).interpolate(System.currentTimeMillis());
        QueryResult.Result result = InfluxQl.execute(db.client, db.database(), influxQl).getResults().get(0);

        Map<Map<String, String>, Boolean> instances = new HashMap<>();
        if (result.getSeries() != null) {
            for (QueryResult.Series s : result.getSeries()) {
                List<Double> values = s.getValues().stream().map(row -> row.get(1)).filter(Objects::nonNull)
                        .map(v -> ((Number) v).doubleValue()).toList();
                Double reduced = reduce(reduce.path("reducer").asText(), values);
                JsonNode evaluator = condition.path("conditions").get(0).path("evaluator");
                instances.put(s.getTags() == null ? Map.of() : s.getTags(),
                        reduced != null && holds(evaluator, reduced));
            }
        }
        return instances;
    }

    private static Double reduce(String reducer, List<Double> values) {
        if (values.isEmpty()) {
            return null;
        }
        return switch (reducer) {
            case "last" -> values.get(values.size() - 1);
            case "mean" -> values.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
            case "max" -> values.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
            case "min" -> values.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
            case "sum" -> values.stream().mapToDouble(Double::doubleValue).sum();
            case "count" -> (double) values.size();
            default -> throw new AssertionError("reducer not evaluated by this test: " + reducer);
        };
    }

    private static boolean holds(JsonNode evaluator, double value) {
        JsonNode params = evaluator.path("params");
        return switch (evaluator.path("type").asText()) {
            case "gt" -> value > params.get(0).asDouble();
            case "lt" -> value < params.get(0).asDouble();
            case "within_range" -> value > params.get(0).asDouble() && value < params.get(1).asDouble();
            case "outside_range" -> value < params.get(0).asDouble() || value > params.get(1).asDouble();
            default -> throw new AssertionError("evaluator not evaluated by this test: " + evaluator);
        };
    }

    private static List<Map<String, String>> firing(Map<Map<String, String>, Boolean> instances) {
        return instances.entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey).toList();
    }
}
