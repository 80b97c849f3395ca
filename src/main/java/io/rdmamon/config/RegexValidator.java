package io.rdmamon.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** A {@link ConfigDef.Validator} for settings that hold a Java regular expression (empty allowed). */
public final class RegexValidator implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
        try {
            Pattern.compile((String) value);
        } catch (PatternSyntaxException e) {
            throw new ConfigException(name, value, "not a valid regular expression: " + e.getDescription());
        }
    }

    @Override
    public String toString() {
        return "a regular expression";
    }
}
