package io.rdmamon.config;

import org.apache.kafka.common.config.ConfigDef;

import java.util.List;

/**
 * A commented properties file listing every key of a {@link ConfigDef} with its doc and default, all commented out:
 * the sample configuration shipped with a role is generated from the one source of defaults, never written by hand.
 */
public final class ConfigTemplate {
    private ConfigTemplate() {
    }

    public static String properties(String title, ConfigDef def) {
        StringBuilder out = new StringBuilder("# ").append(title).append('\n')
                .append("# Generated from the code's defaults; uncomment and change what you need.\n");
        for (ConfigDef.ConfigKey key : def.configKeys().values()) {
            out.append('\n');
            for (String line : wrap(key.documentation, 110)) {
                out.append("# ").append(line).append('\n');
            }
            if (key.validator != null) {
                out.append("# valid: ").append(key.validator).append('\n');
            }
            out.append('#').append(key.name).append('=').append(value(key.defaultValue)).append('\n');
        }
        return out.toString();
    }

    private static String value(Object defaultValue) {
        if (defaultValue == null) {
            return "";
        }
        if (defaultValue instanceof List<?> list) {
            return String.join(",", list.stream().map(String::valueOf).toList());
        }
        return String.valueOf(defaultValue);
    }

    private static List<String> wrap(String text, int width) {
        List<String> lines = new java.util.ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : String.valueOf(text).split("\\s+")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            line.append(line.length() == 0 ? "" : " ").append(word);
        }
        if (line.length() > 0) {
            lines.add(line.toString());
        }
        return lines;
    }
}
