package io.rdmamon.alerts;

import io.rdmamon.model.Alert;
import org.apache.kafka.common.config.ConfigException;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The generatorURL of Alertmanager alerts: a configured link template (typically a Grafana dashboard) with
 * placeholders filled from the alert, e.g. {@code .../d/rdmamon-job?var-job={job}} becomes {@code ...var-job=llama-70b}.
 */
final class GeneratorLink {
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{(\\w+)}");
    private static final Map<String, Function<Alert, Object>> FIELDS = Map.of(
            "id", Alert::id, "type", Alert::type, "job", Alert::job, "namespace", Alert::namespace,
            "node", Alert::node, "device", Alert::device, "port", Alert::port);

    private final String template;

    /** @throws ConfigException when the template names an unknown placeholder or is not a URL once filled */
    GeneratorLink(String template) {
        this.template = template;
        if (template.isEmpty()) {
            return;
        }
        Matcher m = PLACEHOLDER.matcher(template);
        while (m.find()) {
            if (!FIELDS.containsKey(m.group(1))) {
                throw new ConfigException(AlertsConfig.GENERATOR_URL_CONFIG, template, "unknown placeholder {"
                        + m.group(1) + "}; known: " + FIELDS.keySet());
            }
        }
        try {
            URI uri = new URI(PLACEHOLDER.matcher(template).replaceAll("x"));
            if (!uri.isAbsolute()) {
                throw new ConfigException(AlertsConfig.GENERATOR_URL_CONFIG, template, "not an absolute URL");
            }
        } catch (URISyntaxException e) {
            throw new ConfigException(AlertsConfig.GENERATOR_URL_CONFIG, template, "not a valid URL: " + e.getReason());
        }
    }

    /** Null when no template is configured. */
    String render(Alert alert) {
        if (template.isEmpty()) {
            return null;
        }
        return PLACEHOLDER.matcher(template).replaceAll(m -> {
            Object value = FIELDS.get(m.group(1)).apply(alert);
            String text = value == null ? "" : URLEncoder.encode(value.toString(), StandardCharsets.UTF_8);
            return Matcher.quoteReplacement(text);
        });
    }
}
