package io.rdmamon.docs;

import io.rdmamon.model.Alert;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/runbook.md has an entry for every alert type the stream app can raise (the type constants of {@link Alert}),
 * each with what it means, its severity, the first checks, its known false alarms and how it resolves: a new alert
 * type fails here until an operator can read what to do about it.
 */
class RunbookTest {
    private static final List<String> PARTS = List.of("**Means.**", "**Severity.**", "**First checks",
            "**Known false alarms.**", "**Resolves**");

    @Test
    void shouldHaveAnEntryForEveryAlertType() throws Exception {
        String runbook = Files.readString(Path.of("docs/runbook.md"));
        List<String> types = alertTypes();
        assertThat(types).contains(Alert.STALLED_SYNC, Alert.TCP_FALLBACK);
        for (String type : types) {
            int at = runbook.indexOf("\n## " + type + "\n");
            assertThat(at).as("docs/runbook.md has a section '## " + type + "'").isNotNegative();
            int end = runbook.indexOf("\n## ", at + 4);
            String entry = runbook.substring(at, end < 0 ? runbook.length() : end);
            assertThat(entry).as("the runbook entry of " + type).contains(PARTS);
            assertThat(runbook).as("the runbook's table links " + type).contains("[" + type + "](#" + type.toLowerCase() + ")");
        }
    }

    /** Alert's public String constants that name a type (FIRING and RESOLVED are statuses). */
    static List<String> alertTypes() throws IllegalAccessException {
        List<String> types = new ArrayList<>();
        for (Field f : Alert.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class
                    && !Set.of("FIRING", "RESOLVED").contains(f.getName())) {
                String value = (String) f.get(null);
                if (value.equals(f.getName())) {
                    types.add(value);
                }
            }
        }
        return types;
    }
}
