package io.rdmamon.config;

import org.apache.kafka.common.config.ConfigDef;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Renders a {@link ConfigDef} as an annotated properties file: every key with its doc and default. The default
 * configuration files shipped in {@code collector/} and {@code streams/} are this output, so the code stays the one
 * source of defaults (a test compares them).
 */
public final class PropertiesDoc {
    private PropertiesDoc() {
    }

    public static String render(String title, ConfigDef def, String passThroughNote) {
        StringBuilder sb = new StringBuilder();
        sb.append("# ").append(title).append('\n');
        sb.append("# Generated from the code's configuration definitions (rdmamon config show ...): every key, its "
                + "default, and what it does.\n");
        sb.append("# Any key can also be set by environment, e.g. collector.interval.ms as RDMAMON_COLLECTOR_INTERVAL_MS.\n");
        if (passThroughNote != null) {
            sb.append("# ").append(passThroughNote).append('\n');
        }
        for (ConfigDef.ConfigKey key : def.configKeys().values()) {
            sb.append('\n');
            for (String line : wrap(key.documentation, 110)) {
                sb.append("# ").append(line).append('\n');
            }
            String value = defaultText(key);
            if (value == null) {
                sb.append("#").append(key.name).append("=\n");
            } else {
                sb.append(key.name).append('=').append(value).append('\n');
            }
        }
        return sb.toString();
    }

    private static String defaultText(ConfigDef.ConfigKey key) {
        if (!key.hasDefault() || key.defaultValue == null) {
            return null;
        }
        if (key.type == ConfigDef.Type.PASSWORD) {
            return null;
        }
        Object value = key.defaultValue;
        if (value instanceof List<?> list) {
            return list.stream().map(String::valueOf).collect(Collectors.joining(","));
        }
        return String.valueOf(value).replace("\\", "\\\\");
    }

    private static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split("\\s+")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        if (line.length() > 0) {
            lines.add(line.toString());
        }
        return lines;
    }
}
