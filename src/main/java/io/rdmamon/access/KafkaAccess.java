package io.rdmamon.access;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.resource.ResourceType;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A role's Kafka identity, for the one line that says why Kafka turned it away: {@code authentication failed for
 * principal User:x ...} or {@code not authorized: WRITE on topic t for principal User:x}. The Kafka clients' own
 * lines name neither the principal nor the ACL to grant. Never prints a password: the principal is the user name of
 * {@code sasl.jaas.config}, nothing else of it.
 */
public final class KafkaAccess {
    private static final Pattern USER = Pattern.compile("\\b(?:username|principal)\\s*=\\s*\"([^\"]*)\"");

    private final String principal;
    private final String how;
    private final List<RoleAcl> needed;

    private KafkaAccess(String principal, String how, List<RoleAcl> needed) {
        this.principal = principal;
        this.how = how;
        this.needed = needed;
    }

    /** For a client with {@code settings} (Kafka's keys, no prefix) that needs the ACLs {@code needed}. */
    public static KafkaAccess of(Map<String, ?> settings, List<RoleAcl> needed) {
        Map<String, Object> resolved = resolved(settings);
        String protocol = String.valueOf(resolved.getOrDefault(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG,
                "PLAINTEXT"));
        String mechanism = String.valueOf(resolved.getOrDefault(SaslConfigs.SASL_MECHANISM,
                SaslConfigs.DEFAULT_SASL_MECHANISM));
        boolean sasl = protocol.startsWith("SASL");
        String principal;
        if (sasl) {
            Matcher user = USER.matcher(String.valueOf(resolved.get(SaslConfigs.SASL_JAAS_CONFIG)));
            principal = user.find() ? "User:" + user.group(1) : "(no user name in sasl.jaas.config)";
        } else if (protocol.equals("SSL")) {
            principal = "(the subject of the client certificate)";
        } else {
            principal = "User:ANONYMOUS";
        }
        return new KafkaAccess(principal, protocol + (sasl ? " " + mechanism : "") + " to "
                + resolved.get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG), needed);
    }

    public String principal() {
        return principal;
    }

    /** The line for a Kafka error that is an authentication or authorization failure (or caused by one). */
    public Optional<String> describe(Throwable error) {
        for (Throwable e = error; e != null; e = e.getCause() == e ? null : e.getCause()) {
            if (e instanceof AuthenticationException) {
                return Optional.of("authentication failed for principal " + principal + " (" + how + "): "
                        + e.getMessage());
            }
            if (e instanceof AuthorizationException refused) {
                return Optional.of("not authorized: " + refusal(refused) + " for principal " + principal);
            }
        }
        return Optional.empty();
    }

    /** Whether {@code error} is, or was caused by, a failed authentication: the credentials are wrong. */
    public static boolean isAuthenticationFailure(Throwable error) {
        for (Throwable e = error; e != null; e = e.getCause() == e ? null : e.getCause()) {
            if (e instanceof AuthenticationException) {
                return true;
            }
        }
        return false;
    }

    /** The operation and resource refused: looked up in the role's ACLs, since Kafka's error names no operation. */
    private String refusal(AuthorizationException e) {
        if (e instanceof TopicAuthorizationException topics) {
            Set<String> names = topics.unauthorizedTopics();
            if (!names.isEmpty()) {
                return names.stream().sorted().map(t -> operations(ResourceType.TOPIC, t) + " on topic " + t)
                        .collect(Collectors.joining(", "));
            }
        } else if (e instanceof GroupAuthorizationException group && group.groupId() != null) {
            return operations(ResourceType.GROUP, group.groupId()) + " on group " + group.groupId();
        } else if (e instanceof TransactionalIdAuthorizationException) {
            return neededOf(ResourceType.TRANSACTIONAL_ID, "a transactional id (" + e.getMessage() + ")");
        } else if (e instanceof ClusterAuthorizationException) {
            return "an operation on the cluster (" + e.getMessage() + ")";
        }
        return e.getClass().getSimpleName() + " (" + e.getMessage() + ")";
    }

    private String operations(ResourceType type, String name) {
        String ops = needed.stream().filter(acl -> acl.covers(type, name)).map(acl -> acl.operation().name())
                .distinct().collect(Collectors.joining("+"));
        return ops.isEmpty() ? "DESCRIBE" : ops;
    }

    private String neededOf(ResourceType type, String otherwise) {
        return needed.stream().filter(acl -> acl.resourceType() == type).map(RoleAcl::describe).findFirst()
                .orElse(otherwise);
    }

    /** {@code ${file:...}} values resolved as the Kafka client resolves them, so the user name is the real one. */
    private static Map<String, Object> resolved(Map<String, ?> settings) {
        try {
            return new AbstractConfig(new ConfigDef(), settings, false).originals();
        } catch (RuntimeException e) {
            return new HashMap<>(settings);
        }
    }
}
