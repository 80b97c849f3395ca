package io.rdmamon.dashboards;

import io.rdmamon.dashboards.GrafanaFiles.Dashboard;
import io.rdmamon.dashboards.GrafanaFiles.PanelQuery;
import io.rdmamon.dashboards.GrafanaFiles.RuleQuery;
import org.influxdb.dto.QueryResult;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Every InfluxQL query Grafana sends for the files under {@code dashboards/} - panel targets, annotations, template
 * variables and alert rules - interpolated as Grafana interpolates them at {@code nowMs} and run against one server.
 * The InfluxDB 1.x test and the 2.x / 3 Core container tests share it, so all of them run exactly the same queries.
 */
final class GrafanaQueries {
    /** One query as sent ({@code query}, interpolated) and what came back: a result, or the server's error. */
    record Outcome(String name, String query, QueryResult result, String error) {
        boolean hasData() {
            return result != null && GrafanaQueries.hasData(result);
        }

        @Override
        public String toString() {
            return name + ": " + (error != null ? "error " + error : "no data") + " <- " + query;
        }
    }

    private final Function<String, QueryResult> server;
    private final long nowMs;
    private final Map<String, GrafanaTemplate> templates = new HashMap<>();

    /** {@code server} runs one statement and throws on a statement error, as {@code InfluxQl.execute} does. */
    GrafanaQueries(Function<String, QueryResult> server, long nowMs) {
        this.server = server;
        this.nowMs = nowMs;
    }

    /** Runs every dashboard query, then every alert rule query; an error is an outcome, not an exception. */
    List<Outcome> runAll() {
        List<Outcome> out = new ArrayList<>();
        for (PanelQuery q : GrafanaFiles.queries()) {
            String query;
            try {
                query = interpolate(q);
            } catch (RuntimeException e) {
                // a template variable whose own query failed or came back empty
                out.add(new Outcome(q.toString(), q.query(), null, e.getMessage()));
                continue;
            }
            out.add(outcome(q.toString(), query));
        }
        for (RuleQuery q : GrafanaFiles.alertRuleQueries()) {
            out.add(outcome(q.toString(), q.interpolate(nowMs)));
        }
        return out;
    }

    /** The outcomes that returned no data, with the reason. */
    static List<Outcome> withoutData(List<Outcome> outcomes) {
        return outcomes.stream().filter(o -> !o.hasData()).toList();
    }

    QueryResult run(PanelQuery q) {
        return server.apply(interpolate(q));
    }

    /** The query as Grafana sends it: the panel's own time range, or the dashboard's. */
    String interpolate(PanelQuery q) {
        String timeFrom = q.timeFrom() != null ? q.timeFrom()
                : q.dashboard().json().path("time").path("from").asText();
        return template(q.dashboard()).interpolate(q.query(), timeFrom, q.minInterval());
    }

    /** The dashboard's variables, resolved once by running their queries. */
    GrafanaTemplate template(Dashboard d) {
        return templates.computeIfAbsent(d.uid(), uid -> GrafanaTemplate.resolve(d.json(), nowMs, this::firstColumn));
    }

    /** At least one series with a non-null value outside the time column. */
    static boolean hasData(QueryResult result) {
        if (result.getResults() == null || result.getResults().isEmpty()) {
            return false;
        }
        QueryResult.Result first = result.getResults().get(0);
        if (first.getSeries() == null) {
            return false;
        }
        for (QueryResult.Series s : first.getSeries()) {
            for (List<Object> row : s.getValues() == null ? List.<List<Object>>of() : s.getValues()) {
                for (int i = 0; i < row.size(); i++) {
                    if (!s.getColumns().get(i).equals("time") && row.get(i) != null) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private Outcome outcome(String name, String query) {
        try {
            QueryResult result = server.apply(query);
            return new Outcome(name, query, result, null);
        } catch (RuntimeException e) {
            return new Outcome(name, query, null, e.getMessage());
        }
    }

    private List<String> firstColumn(String query) {
        List<String> values = new ArrayList<>();
        QueryResult.Result result = server.apply(query).getResults().get(0);
        if (result.getSeries() != null) {
            for (QueryResult.Series s : result.getSeries()) {
                int column = s.getColumns().indexOf("value");
                s.getValues().forEach(row -> values.add(String.valueOf(row.get(column < 0 ? 1 : column))));
            }
        }
        return values;
    }
}
