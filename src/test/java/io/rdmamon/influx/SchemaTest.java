package io.rdmamon.influx;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The schema's rules, checked over every declared measurement rather than by example. */
class SchemaTest {
    /** InfluxQL keywords a name must not be (it would need quoting in every dashboard query), plus "time". */
    private static final Set<String> RESERVED = Set.of("all", "alter", "any", "as", "asc", "begin", "by", "create",
            "continuous", "database", "databases", "default", "delete", "desc", "destinations", "diagnostics",
            "distinct", "drop", "duration", "end", "every", "explain", "field", "for", "from", "grant", "grants",
            "group", "groups", "in", "inf", "insert", "into", "key", "keys", "kill", "limit", "measurement",
            "measurements", "name", "offset", "on", "order", "password", "policy", "policies", "privileges",
            "queries", "query", "read", "replication", "resample", "retention", "revoke", "select", "series", "set",
            "shard", "shards", "slimit", "soffset", "stats", "subscription", "subscriptions", "tag", "to", "user",
            "users", "values", "where", "with", "write", "time");

    @Test
    void shouldUsePlainSnakeCaseNamesThatAreNeverKeywords() {
        for (MeasurementSpec m : Schema.ALL) {
            List<String> names = new java.util.ArrayList<>(m.tags());
            names.add(m.name());
            m.fields().forEach(f -> names.add(f.name()));
            assertThat(names).as(m.name()).allMatch(n -> n.matches("[a-z][a-z0-9_]*"))
                    .noneMatch(RESERVED::contains);
        }
    }

    @Test
    void shouldNeverShareANameBetweenATagAndAFieldInRawOrRollupPoints() {
        for (MeasurementSpec m : Schema.ALL) {
            Set<String> rollupFields = new HashSet<>();
            m.fields().forEach(f -> f.rollup().forEach(a -> assertThat(rollupFields.add(f.rollupName(a)))
                    .as(m.name() + " rollup field " + f.rollupName(a) + " is unique").isTrue()));
            if (m.samplesField() != null) {
                assertThat(rollupFields.add(Schema.SAMPLES)).isTrue();
                assertThat(m.field(m.samplesField())).isPresent();
            }
            assertThat(rollupFields).as(m.name()).doesNotContainAnyElementsOf(m.tags());
            assertThat(m.fields()).extracting(MeasurementSpec.FieldSpec::name).doesNotHaveDuplicates()
                    .doesNotContainAnyElementsOf(m.tags());
        }
    }

    @Test
    void shouldDocumentTheSchemaExactlyAsDeclared() throws Exception {
        assertThat(Files.readString(Path.of("docs", "influxdb.md")))
                .as("docs/influxdb.md is out of date: paste the output of ./rdmamon influx schema")
                .contains(SchemaDoc.markdown());
    }
}
