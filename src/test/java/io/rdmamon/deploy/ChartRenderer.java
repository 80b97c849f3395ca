package io.rdmamon.deploy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Renders rdmamon's Helm chart without the helm binary, for the subset of Go templates the chart keeps to: {@code
 * .Values.x.y} (optionally {@code | quote}, or {@code | default .Values.z}: z where x.y is empty), {@code
 * .Release.Namespace}, {@code .Release.Name}, {@code .Chart.AppVersion}, {@code toYaml X | nindent N}, {@code
 * include "name" . | nindent N}, {@code define}, {@code if X}, {@code if not X}, {@code range $k, $v := .Values.map} (sorted keys) and {@code end}, with Go's {@code {{-}} / {@code -}}} whitespace trimming. Anything else, or a value the values do
 * not hold, is an error: the chart must stay within what this renderer (and so the tests) understands.
 */
final class ChartRenderer {
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));
    static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern ACTION = Pattern.compile("\\{\\{(-?)\\s*(.*?)\\s*(-?)}}", Pattern.DOTALL);
    private static final Pattern NINDENT = Pattern.compile("(.+?)\\s*\\|\\s*nindent\\s+(\\d+)");
    private static final Pattern INCLUDE = Pattern.compile("include\\s+\"([^\"]+)\"\\s+\\.");
    private static final Pattern RANGE = Pattern.compile("range\\s+(\\$\\w+)\\s*,\\s*(\\$\\w+)\\s*:=\\s*(\\S+)");
    private static final Pattern DEFAULT = Pattern.compile("(\\S+)\\s*\\|\\s*default\\s+(\\S+)");

    private final Path chartDir;
    private final Map<String, Object> root = new HashMap<>();
    private final Map<String, List<Object>> defines = new HashMap<>();
    private final Map<String, Object> variables = new HashMap<>();

    /** {@code values} are the chart's values.yaml with {@code overrides} (dotted paths) applied. */
    ChartRenderer(Path chartDir, String releaseName, String namespace, Map<String, Object> overrides) {
        this(chartDir, releaseName, namespace, List.of(), overrides);
    }

    /**
     * The chart's values.yaml, then each of {@code valuesFiles} merged over it in order (maps merged key by key, any
     * other value replaced, as {@code helm install -f a.yaml -f b.yaml} does), then {@code overrides}.
     */
    @SuppressWarnings("unchecked")
    ChartRenderer(Path chartDir, String releaseName, String namespace, List<Path> valuesFiles,
                  Map<String, Object> overrides) {
        this.chartDir = chartDir;
        try {
            Map<String, Object> values = YAML.readValue(chartDir.resolve("values.yaml").toFile(), Map.class);
            for (Path file : valuesFiles) {
                Map<String, Object> more = YAML.readValue(file.toFile(), Map.class);
                if (more != null) {
                    merge(values, more);
                }
            }
            overrides.forEach((path, value) -> set(values, path, value));
            Map<String, Object> chart = YAML.readValue(chartDir.resolve("Chart.yaml").toFile(), Map.class);
            root.put("Values", values);
            root.put("Release", Map.of("Name", releaseName, "Namespace", namespace));
            root.put("Chart", Map.of("AppVersion", String.valueOf(chart.get("appVersion")),
                    "Name", String.valueOf(chart.get("name"))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Template file name → rendered text, for every template (helpers, files starting with _, define only). */
    Map<String, String> render() {
        Map<String, List<Object>> templates = new TreeMap<>();
        try (Stream<Path> files = Files.list(chartDir.resolve("templates"))) {
            for (Path file : files.sorted().toList()) {
                templates.put(file.getFileName().toString(), tokens(Files.readString(file)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> out = new TreeMap<>();
        templates.forEach((name, tokens) -> {
            String text = execute(tokens, name);
            if (!name.startsWith("_")) {
                out.put(name, text);
            }
        });
        return out;
    }

    /** Text pieces (String) and actions (Action), with the trim markers already applied to the text. */
    private static List<Object> tokens(String template) {
        List<Object> tokens = new ArrayList<>();
        Matcher m = ACTION.matcher(template);
        int last = 0;
        boolean trimNext = false;
        while (m.find()) {
            String text = template.substring(last, m.start());
            if (trimNext) {
                text = text.stripLeading();
            }
            if (!m.group(1).isEmpty()) {
                text = text.stripTrailing();
            }
            tokens.add(text);
            tokens.add(new Action(m.group(2)));
            trimNext = !m.group(3).isEmpty();
            last = m.end();
        }
        String tail = template.substring(last);
        tokens.add(trimNext ? tail.stripLeading() : tail);
        return tokens;
    }

    private record Action(String expr) {
    }

    private String execute(List<Object> tokens, String where) {
        StringBuilder out = new StringBuilder();
        int end = run(tokens, 0, out, true, where);
        if (end != tokens.size()) {
            throw new IllegalArgumentException(where + ": unexpected {{ end }}");
        }
        return out.toString();
    }

    /** Runs tokens from {@code i} until an unmatched {@code end}; returns the index after it (or the size). */
    private int run(List<Object> tokens, int i, StringBuilder out, boolean emit, String where) {
        while (i < tokens.size()) {
            Object token = tokens.get(i++);
            if (token instanceof String text) {
                if (emit) {
                    out.append(text);
                }
                continue;
            }
            String expr = ((Action) token).expr();
            if (expr.equals("end")) {
                return i;
            } else if (expr.startsWith("define ")) {
                String name = expr.substring("define ".length()).trim().replace("\"", "");
                int after = skipBlock(tokens, i, where);
                defines.put(name, tokens.subList(i, after - 1));
                i = after;
            } else if (expr.startsWith("range ")) {
                Matcher range = RANGE.matcher(expr);
                if (!range.matches()) {
                    throw new IllegalArgumentException(where + ": unsupported template action {{ " + expr + " }}");
                }
                int after = skipBlock(tokens, i, where);
                Object over = emit ? lookup(range.group(3), where) : null;
                if (over != null && !(over instanceof Map<?, ?>)) {
                    throw new IllegalArgumentException(where + ": range over " + range.group(3) + ", not a map");
                }
                if (over != null) {
                    // Go templates range over a map's keys in sorted order
                    for (var entry : new TreeMap<>((Map<?, ?>) over).entrySet()) {
                        variables.put(range.group(1), entry.getKey());
                        variables.put(range.group(2), entry.getValue());
                        run(tokens, i, out, true, where);
                    }
                    variables.remove(range.group(1));
                    variables.remove(range.group(2));
                }
                i = after;
            } else if (expr.startsWith("if ")) {
                String test = expr.substring(3).trim();
                boolean negate = test.startsWith("not ");
                boolean condition = emit && negate != truthy(lookup(negate ? test.substring(4).trim() : test, where));
                i = run(tokens, i, out, condition, where);
            } else if (emit) {
                out.append(evaluate(expr, where));
            }
        }
        return i;
    }

    private static int skipBlock(List<Object> tokens, int i, String where) {
        int depth = 1;
        for (; i < tokens.size(); i++) {
            if (tokens.get(i) instanceof Action a) {
                if (a.expr().startsWith("if ") || a.expr().startsWith("define ") || a.expr().startsWith("range ")) {
                    depth++;
                } else if (a.expr().equals("end") && --depth == 0) {
                    return i + 1;
                }
            }
        }
        throw new IllegalArgumentException(where + ": block without {{ end }}");
    }

    private String evaluate(String expr, String where) {
        Matcher nindent = NINDENT.matcher(expr);
        if (nindent.matches()) {
            String indent = " ".repeat(Integer.parseInt(nindent.group(2)));
            return "\n" + indent + String.join("\n" + indent, block(nindent.group(1).trim(), where).split("\n", -1));
        }
        Matcher orElse = DEFAULT.matcher(expr);
        if (orElse.matches()) {
            Object value = lookup(orElse.group(1), where);
            return scalar(truthy(value) ? value : lookup(orElse.group(2), where));
        }
        if (expr.endsWith("| quote")) {
            String value = scalar(lookup(expr.substring(0, expr.length() - "| quote".length()).trim(), where));
            return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        }
        return scalar(lookup(expr, where));
    }

    private String block(String expr, String where) {
        Matcher include = INCLUDE.matcher(expr);
        if (include.matches()) {
            List<Object> body = defines.get(include.group(1));
            if (body == null) {
                throw new IllegalArgumentException(where + ": no template defined as " + include.group(1));
            }
            return execute(body, where + " > " + include.group(1));
        }
        if (expr.startsWith("toYaml ")) {
            try {
                return YAML.writeValueAsString(lookup(expr.substring("toYaml ".length()).trim(), where)).stripTrailing();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalArgumentException(where + ": unsupported template action {{ " + expr + " }}");
    }

    private Object lookup(String path, String where) {
        if (variables.containsKey(path)) {
            return variables.get(path);
        }
        if (!path.startsWith(".") || path.contains(" ")) {
            throw new IllegalArgumentException(where + ": unsupported template action {{ " + path + " }}");
        }
        Object node = root;
        for (String part : path.substring(1).split("\\.")) {
            if (!(node instanceof Map<?, ?> map) || !map.containsKey(part)) {
                throw new IllegalArgumentException(where + ": " + path + " is not in the chart's values");
            }
            node = map.get(part);
        }
        return node;
    }

    private static String scalar(Object value) {
        if (value instanceof Map<?, ?> || value instanceof Collection<?>) {
            throw new IllegalArgumentException("not a scalar: " + value);
        }
        return value == null ? "" : value.toString();
    }

    private static boolean truthy(Object value) {
        return value != null && !Boolean.FALSE.equals(value) && !"".equals(value)
                && !(value instanceof Number n && n.doubleValue() == 0)
                && !(value instanceof Map<?, ?> m && m.isEmpty())
                && !(value instanceof Collection<?> c && c.isEmpty());
    }

    @SuppressWarnings("unchecked")
    private static void merge(Map<String, Object> into, Map<String, Object> from) {
        from.forEach((key, value) -> {
            if (value instanceof Map<?, ?> m && into.get(key) instanceof Map<?, ?> existing) {
                Map<String, Object> copy = new HashMap<>((Map<String, Object>) existing);
                merge(copy, (Map<String, Object>) m);
                into.put(key, copy);
            } else {
                into.put(key, value);
            }
        });
    }

    @SuppressWarnings("unchecked")
    private static void set(Map<String, Object> values, String path, Object value) {
        String[] parts = path.split("\\.");
        Map<String, Object> node = values;
        for (int i = 0; i < parts.length - 1; i++) {
            node = (Map<String, Object>) node.computeIfAbsent(parts[i], k -> new HashMap<String, Object>());
        }
        node.put(parts[parts.length - 1], value);
    }
}
