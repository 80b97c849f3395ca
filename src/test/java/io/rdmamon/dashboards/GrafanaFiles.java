package io.rdmamon.dashboards;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.rdmamon.model.Json;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The files under {@code dashboards/}: dashboard JSON and Grafana provisioning YAML, parsed, plus every InfluxQL
 * query they contain (panel targets, annotations, template variables, alert rules) with the context Grafana runs it
 * in.
 */
final class GrafanaFiles {
    static final Path ROOT = Path.of("dashboards");
    static final Path PROVISIONING = ROOT.resolve("provisioning");
    /** The datasource uid of Grafana's server-side expressions (reduce, threshold) in alert rules. */
    static final String EXPRESSIONS_UID = "__expr__";
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** A dashboard file and its parsed JSON. */
    record Dashboard(Path file, JsonNode json) {
        String uid() {
            return json.path("uid").asText();
        }

        /** Every panel, rows' nested panels included. */
        List<JsonNode> panels() {
            List<JsonNode> out = new ArrayList<>();
            for (JsonNode panel : json.path("panels")) {
                out.add(panel);
                panel.path("panels").forEach(out::add);
            }
            return out;
        }

        List<JsonNode> variables() {
            List<JsonNode> out = new ArrayList<>();
            json.path("templating").path("list").forEach(out::add);
            return out;
        }

        /** Annotation queries of the InfluxDB datasource (Grafana's built-in annotation has no query). */
        List<JsonNode> annotations() {
            List<JsonNode> out = new ArrayList<>();
            json.path("annotations").path("list").forEach(a -> {
                if (a.has("query")) {
                    out.add(a);
                }
            });
            return out;
        }
    }

    /**
     * One query as Grafana runs it: {@code timeFrom} is the panel's relative time override (null: the dashboard's),
     * {@code minInterval} the panel's minimum {@code $__interval} (null: the datasource's).
     */
    record PanelQuery(Dashboard dashboard, String where, String query, String timeFrom, String minInterval) {
        @Override
        public String toString() {
            return dashboard.uid() + " / " + where;
        }
    }

    /**
     * The InfluxDB query of an alert rule: Grafana evaluates it over the rule's relative time range, seconds before
     * the evaluation ({@code relativeTimeRange: {from, to}}).
     */
    record RuleQuery(String uid, String refId, String query, long fromSeconds, long toSeconds) {
        static RuleQuery of(JsonNode rule, JsonNode step) {
            JsonNode range = step.path("relativeTimeRange");
            return new RuleQuery(rule.path("uid").asText(), step.path("refId").asText(),
                    step.path("model").path("query").asText(), range.path("from").asLong(), range.path("to").asLong());
        }

        /** The query as Grafana sends it when it evaluates the rule at {@code nowMs}. */
        String interpolate(long nowMs) {
            return query.replace("$timeFilter", "time >= " + (nowMs - fromSeconds * 1000) + "ms and time <= "
                    + (nowMs - toSeconds * 1000) + "ms");
        }

        @Override
        public String toString() {
            return "alert rule " + uid + " " + refId;
        }
    }

    private GrafanaFiles() {
    }

    static List<Dashboard> dashboards() {
        try (Stream<Path> files = Files.list(ROOT)) {
            return files.filter(p -> p.toString().endsWith(".json")).sorted()
                    .map(p -> new Dashboard(p, read(Json.MAPPER, p))).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every panel target, annotation and variable query of every dashboard. */
    static List<PanelQuery> queries() {
        List<PanelQuery> out = new ArrayList<>();
        for (Dashboard d : dashboards()) {
            for (JsonNode panel : d.panels()) {
                for (JsonNode target : panel.path("targets")) {
                    out.add(new PanelQuery(d, "panel " + panel.path("id").asInt() + " '" + panel.path("title").asText()
                            + "' " + target.path("refId").asText(), target.path("query").asText(),
                            text(panel, "timeFrom"), text(panel, "interval")));
                }
            }
            for (JsonNode annotation : d.annotations()) {
                out.add(new PanelQuery(d, "annotation '" + annotation.path("name").asText() + "'",
                        annotation.path("query").asText(), null, null));
            }
            for (JsonNode variable : d.variables()) {
                if (variable.path("type").asText().equals("query")) {
                    out.add(new PanelQuery(d, "variable $" + variable.path("name").asText(),
                            variable.path("query").asText(), null, null));
                }
            }
        }
        return out;
    }

    /** Every provisioned alert rule, in file order. */
    static List<JsonNode> alertRules() {
        List<JsonNode> rules = new ArrayList<>();
        yaml("alerting/rules.yaml").path("groups").forEach(g -> g.path("rules").forEach(rules::add));
        return rules;
    }

    /** The InfluxDB queries of every alert rule (the steps that are not Grafana server-side expressions). */
    static List<RuleQuery> alertRuleQueries() {
        List<RuleQuery> out = new ArrayList<>();
        for (JsonNode rule : alertRules()) {
            for (JsonNode step : rule.path("data")) {
                if (!step.path("datasourceUid").asText().equals(EXPRESSIONS_UID)) {
                    out.add(RuleQuery.of(rule, step));
                }
            }
        }
        return out;
    }

    static JsonNode yaml(String relativePath) {
        return read(YAML, PROVISIONING.resolve(relativePath));
    }

    /** All YAML files under provisioning/, parsed. */
    static List<Path> yamlFiles() {
        try (Stream<Path> files = Files.walk(PROVISIONING)) {
            return files.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml")).sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode readYaml(Path file) {
        return read(YAML, file);
    }

    private static JsonNode read(ObjectMapper mapper, Path file) {
        try {
            return mapper.readTree(file.toFile());
        } catch (IOException e) {
            throw new IllegalStateException(file + " is not valid: " + e.getMessage(), e);
        }
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() || value.asText().isBlank() ? null : value.asText();
    }
}
