package io.rdmamon.access;

import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

import java.util.Locale;

/**
 * One ACL a role needs: {@code operation} on a topic, group or transactional id, named exactly ({@link
 * PatternType#LITERAL}) or by prefix ({@link PatternType#PREFIXED}).
 */
public record RoleAcl(ResourceType resourceType, String name, PatternType patternType, AclOperation operation) {

    public static RoleAcl topic(AclOperation operation, String topic) {
        return new RoleAcl(ResourceType.TOPIC, topic, PatternType.LITERAL, operation);
    }

    public static RoleAcl prefixed(ResourceType type, AclOperation operation, String prefix) {
        return new RoleAcl(type, prefix, PatternType.PREFIXED, operation);
    }

    public static RoleAcl group(AclOperation operation, String group) {
        return new RoleAcl(ResourceType.GROUP, group, PatternType.LITERAL, operation);
    }

    /** Whether this ACL covers the resource {@code type}/{@code resourceName}. */
    public boolean covers(ResourceType type, String resourceName) {
        return type == resourceType && (patternType == PatternType.PREFIXED ? resourceName.startsWith(name)
                : resourceName.equals(name));
    }

    /** The ACL for {@code principal} (e.g. {@code User:rdmamon-sink}), from any host. */
    public AclBinding binding(String principal) {
        return new AclBinding(new ResourcePattern(resourceType, name, patternType),
                new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
    }

    /** e.g. {@code READ on group rdmamon-sink}, {@code ALL on topics prefixed rdmamon-streams}. */
    public String describe() {
        return operation + " on " + resource();
    }

    String resource() {
        String type = resourceType == ResourceType.TRANSACTIONAL_ID ? "transactional-id"
                : resourceType.name().toLowerCase(Locale.ROOT);
        return patternType == PatternType.PREFIXED ? type + "s prefixed " + name : type + " " + name;
    }

    /** The {@code kafka-acls} arguments that grant it (after {@code --bootstrap-server ... --add}). */
    public String kafkaAclsArguments(String principal) {
        String option = switch (resourceType) {
            case TOPIC -> "--topic";
            case GROUP -> "--group";
            case TRANSACTIONAL_ID -> "--transactional-id";
            default -> throw new IllegalStateException("no kafka-acls option for " + resourceType);
        };
        return "--allow-principal " + principal + " --operation " + operationName() + " " + option + " " + name
                + (patternType == PatternType.PREFIXED ? " --resource-pattern-type prefixed" : "");
    }

    private String operationName() {
        // kafka-acls spells operations in camel case: Read, Write, All
        String upper = operation.name();
        return upper.charAt(0) + upper.substring(1).toLowerCase(Locale.ROOT);
    }
}
