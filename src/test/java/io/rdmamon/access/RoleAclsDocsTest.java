package io.rdmamon.access;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.streams.errors.StreamsException;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/deploy.md's kafka-acls.sh commands are exactly the ACLs {@link RoleAcls} gives and the secured test grants. */
class RoleAclsDocsTest {

    @Test
    void theDocsGrantExactlyTheAclsOfEveryRole() throws Exception {
        List<String> documented = Files.readAllLines(Path.of("docs", "deploy.md")).stream()
                .filter(line -> line.startsWith("kafka-acls.sh ")).toList();
        List<String> expected = new ArrayList<>();
        RoleAcls.defaults().forEach((role, acls) -> acls.forEach(acl -> expected.add("kafka-acls.sh $ADMIN --add "
                + acl.kafkaAclsArguments("User:rdmamon-" + role))));
        assertThat(documented).containsExactlyElementsOf(expected);
    }

    /** Kafka's errors name a resource, not the operation: the line takes it from the role's ACLs. */
    @Test
    void aRefusalNamesTheOperationTheRoleNeedsOnThatResourceAndNeverThePassword() {
        KafkaAccess streams = KafkaAccess.of(Map.of("bootstrap.servers", "kafka:9093", "security.protocol", "SASL_SSL",
                "sasl.mechanism", "SCRAM-SHA-512", "sasl.jaas.config", "org.apache.kafka.common.security.scram."
                        + "ScramLoginModule required username=\"rdmamon-streams\" password=\"s3cret\";"),
                RoleAcls.defaults().get("streams"));

        assertThat(streams.describe(new StreamsException(new TopicAuthorizationException(
                Set.of("rdma.alerts", "rdmamon-streams-store-changelog"))))).contains("not authorized: "
                + "WRITE on topic rdma.alerts, ALL on topic rdmamon-streams-store-changelog for principal "
                + "User:rdmamon-streams");
        assertThat(streams.describe(new GroupAuthorizationException("refused", "rdmamon-streams")))
                .contains("not authorized: READ on group rdmamon-streams for principal User:rdmamon-streams");
        assertThat(streams.describe(new KafkaException(new SaslAuthenticationException("invalid credentials"))))
                .contains("authentication failed for principal User:rdmamon-streams (SASL_SSL SCRAM-SHA-512 to "
                        + "kafka:9093): invalid credentials");
        assertThat(streams.describe(new KafkaException("broker gone"))).isEmpty();
    }
}
