package io.rdmamon.dashboards;

import com.fasterxml.jackson.databind.JsonNode;
import io.rdmamon.config.Durations;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Grafana's interpolation of an InfluxQL query, as its InfluxDB datasource does it: {@code $timeFilter} for the
 * panel's time range, {@code $__interval} / {@code $__interval_ms} from the range and the minimum interval, and
 * template variables ({@code $var}, {@code ${var}}, {@code [[var]]}). A multi-value or include-All variable is
 * regex-escaped and, with several values, becomes {@code (a|b)}; a single-value variable is inserted as is. Query
 * variables are resolved by running their own queries, in order, and select what Grafana selects on first load: All
 * when offered, otherwise the first value in the variable's sort order. An unknown variable is an error.
 */
final class GrafanaTemplate {
    /** Grafana's default maximum number of data points of a panel, roughly its width in pixels. */
    private static final long MAX_DATA_POINTS = 1_000;
    /** The datasource's timeInterval (provisioning jsonData.timeInterval): the floor of $__interval. */
    static final Duration DATASOURCE_MIN_INTERVAL = Duration.ofSeconds(10);
    private static final List<Duration> NICE_INTERVALS = List.of(Duration.ofSeconds(1), Duration.ofSeconds(2),
            Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(15), Duration.ofSeconds(20),
            Duration.ofSeconds(30), Duration.ofMinutes(1), Duration.ofMinutes(2), Duration.ofMinutes(5),
            Duration.ofMinutes(10), Duration.ofMinutes(15), Duration.ofMinutes(20), Duration.ofMinutes(30),
            Duration.ofHours(1), Duration.ofHours(2), Duration.ofHours(3), Duration.ofHours(6), Duration.ofHours(12),
            Duration.ofDays(1), Duration.ofDays(7));
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{(\\w+)(?::\\w+)?}|\\[\\[(\\w+)]]|\\$(\\w+)");
    private static final Pattern RELATIVE = Pattern.compile("now-(\\d+)([smhdw])");
    private static final Pattern REGEX_SPECIAL = Pattern.compile("[\\\\^$*+?.()|\\[\\]{}/]");

    private final Map<String, String> variables = new HashMap<>();
    private final long nowMs;

    private GrafanaTemplate(long nowMs) {
        this.nowMs = nowMs;
    }

    /**
     * The variables of {@code dashboard}, each query variable resolved with {@code runner} (query → the values of its
     * first column); fails when a query variable has no value.
     */
    static GrafanaTemplate resolve(JsonNode dashboard, long nowMs, Function<String, List<String>> runner) {
        GrafanaTemplate template = new GrafanaTemplate(nowMs);
        String timeFrom = dashboard.path("time").path("from").asText();
        for (JsonNode v : dashboard.path("templating").path("list")) {
            String name = v.path("name").asText();
            List<String> values = switch (v.path("type").asText()) {
                case "constant" -> List.of(v.path("query").asText());
                case "custom" -> List.of(v.path("current").path("value").asText(
                        v.path("query").asText().split(",")[0]));
                case "query" -> {
                    List<String> found = new ArrayList<>(runner.apply(template.interpolate(v.path("query").asText(),
                            timeFrom, null)));
                    if (found.isEmpty()) {
                        throw new AssertionError("variable $" + name + " has no values: " + v.path("query").asText());
                    }
                    int sort = v.path("sort").asInt(0);
                    if (sort == 1 || sort == 3 || sort == 5) {
                        found.sort(null);
                    } else if (sort == 2 || sort == 4 || sort == 6) {
                        found.sort(Comparator.reverseOrder());
                    }
                    yield v.path("includeAll").asBoolean() ? found : List.of(found.get(0));
                }
                default -> throw new AssertionError("unsupported variable type of $" + name);
            };
            boolean regexFormatted = v.path("multi").asBoolean() || v.path("includeAll").asBoolean();
            template.variables.put(name, format(values, regexFormatted));
        }
        return template;
    }

    /** {@code query} with everything Grafana replaces replaced, for a panel time range and minimum interval. */
    String interpolate(String query, String timeFrom, String minInterval) {
        long fromMs = nowMs - relative(timeFrom).toMillis();
        Duration interval = interval(nowMs - fromMs, minInterval == null ? DATASOURCE_MIN_INTERVAL
                : Durations.parse(minInterval));
        String timeFilter = "time >= " + fromMs + "ms and time <= " + nowMs + "ms";
        Matcher m = VARIABLE.matcher(query);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3);
            String value = switch (name) {
                case "timeFilter", "__timeFilter" -> timeFilter;
                case "__interval" -> influxDuration(interval);
                case "__interval_ms" -> String.valueOf(interval.toMillis());
                default -> {
                    String v = variables.get(name);
                    if (v == null) {
                        throw new AssertionError("unknown variable $" + name + " in: " + query);
                    }
                    yield v;
                }
            };
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** "now-6h" → 6 hours; Grafana's relative ranges as used in this project's dashboards and panels. */
    static Duration relative(String timeFrom) {
        String spec = timeFrom.startsWith("now-") ? timeFrom : "now-" + timeFrom;
        Matcher m = RELATIVE.matcher(spec);
        if (!m.matches()) {
            throw new AssertionError("unsupported relative time " + timeFrom);
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            case "d" -> Duration.ofDays(n);
            default -> Duration.ofDays(7 * n);
        };
    }

    /** Range over the maximum number of points, at least {@code floor}, rounded up to a "nice" interval. */
    static Duration interval(long rangeMs, Duration floor) {
        Duration raw = Duration.ofMillis(Math.max(rangeMs / MAX_DATA_POINTS, floor.toMillis()));
        return NICE_INTERVALS.stream().filter(d -> d.compareTo(raw) >= 0).findFirst().orElse(raw);
    }

    static String influxDuration(Duration d) {
        long s = d.toSeconds();
        if (s % 86_400 == 0) {
            return s / 86_400 + "d";
        }
        if (s % 3_600 == 0) {
            return s / 3_600 + "h";
        }
        return s % 60 == 0 ? s / 60 + "m" : s + "s";
    }

    private static String format(List<String> values, boolean regex) {
        if (!regex) {
            return values.get(0);
        }
        List<String> escaped = values.stream().map(v -> REGEX_SPECIAL.matcher(v).replaceAll("\\\\$0")).toList();
        return escaped.size() == 1 ? escaped.get(0) : "(" + String.join("|", escaped) + ")";
    }
}
