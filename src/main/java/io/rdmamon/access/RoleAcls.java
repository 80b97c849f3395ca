package io.rdmamon.access;

import io.rdmamon.model.Topics;
import org.apache.kafka.common.resource.ResourceType;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.apache.kafka.common.acl.AclOperation.ALL;
import static org.apache.kafka.common.acl.AclOperation.READ;
import static org.apache.kafka.common.acl.AclOperation.WRITE;

/**
 * The least privilege of each role on a Kafka whose authorizer denies what no ACL allows: the table of docs/deploy.md
 * ("Kafka ACLs"), the ACLs the secured-Kafka test grants, and what a refusal is looked up in to name the operation.
 * Topics are created beforehand by an administrator (the chart's topics job), so no role needs CREATE; WRITE and READ
 * imply DESCRIBE; an idempotent producer needs no cluster ACL once it may WRITE a topic (KIP-679).
 */
public final class RoleAcls {
    private RoleAcls() {
    }

    /** Samples of the node's ports, host interfaces and GPUs, and which pod holds which device. */
    public static List<RoleAcl> collector(String portSamples, String hostSamples, String gpuSamples,
                                          String podDevices) {
        return List.of(RoleAcl.topic(WRITE, portSamples), RoleAcl.topic(WRITE, hostSamples),
                RoleAcl.topic(WRITE, gpuSamples), RoleAcl.topic(WRITE, podDevices));
    }

    public static List<RoleAcl> jobsPublish(String jobs) {
        return List.of(RoleAcl.topic(WRITE, jobs));
    }

    /**
     * Reads its own records back at start (by assignment: no group) and the pod devices the collectors publish
     * ({@code podDevices} null: not read); likewise the node records ({@code nodes} null: not published).
     */
    public static List<RoleAcl> jobsWatch(String jobs, String podDevices, String nodes) {
        List<RoleAcl> acls = new ArrayList<>(List.of(RoleAcl.topic(READ, jobs), RoleAcl.topic(WRITE, jobs)));
        if (podDevices != null) {
            acls.add(RoleAcl.topic(READ, podDevices));
        }
        if (nodes != null) {
            acls.add(RoleAcl.topic(READ, nodes));
            acls.add(RoleAcl.topic(WRITE, nodes));
        }
        return List.copyOf(acls);
    }

    /**
     * Kafka Streams with exactly-once: its inputs READ, outputs WRITE, its internal topics (changelogs, repartition
     * topics: named {@code <application.id>-...}) ALL, its group READ and its transactional ids WRITE.
     */
    public static List<RoleAcl> streams(String applicationId, List<String> inputs, List<String> outputs) {
        List<RoleAcl> acls = new ArrayList<>();
        inputs.forEach(topic -> acls.add(RoleAcl.topic(READ, topic)));
        outputs.forEach(topic -> acls.add(RoleAcl.topic(WRITE, topic)));
        acls.add(RoleAcl.prefixed(ResourceType.TOPIC, ALL, applicationId));
        acls.add(RoleAcl.group(READ, applicationId));
        acls.add(RoleAcl.prefixed(ResourceType.TRANSACTIONAL_ID, WRITE, applicationId));
        return List.copyOf(acls);
    }

    public static List<RoleAcl> sink(String group, List<String> inputs, String deadLetter) {
        List<RoleAcl> acls = new ArrayList<>();
        inputs.forEach(topic -> acls.add(RoleAcl.topic(READ, topic)));
        acls.add(RoleAcl.group(READ, group));
        acls.add(RoleAcl.topic(WRITE, deadLetter));
        return List.copyOf(acls);
    }

    /** One consumer group per receiver, {@code <group.id>-<receiver>}: a prefix. */
    public static List<RoleAcl> alerts(String groupId, String alerts, String deadLetter) {
        return List.of(RoleAcl.topic(READ, alerts), RoleAcl.prefixed(ResourceType.GROUP, READ, groupId),
                RoleAcl.topic(WRITE, deadLetter));
    }

    /** Every role's ACLs with the default topic names, group ids and application.id, in the docs' order. */
    public static Map<String, List<RoleAcl>> defaults() {
        Map<String, List<RoleAcl>> roles = new LinkedHashMap<>();
        roles.put("collector", collector(Topics.PORT_SAMPLES, Topics.HOST_SAMPLES, Topics.GPU_SAMPLES,
                Topics.POD_DEVICES));
        roles.put("jobs-publish", jobsPublish(Topics.JOBS));
        roles.put("jobs-watch", jobsWatch(Topics.JOBS, Topics.POD_DEVICES, Topics.NODES));
        roles.put("streams", streams("rdmamon-streams", List.of(Topics.PORT_SAMPLES, Topics.HOST_SAMPLES,
                Topics.GPU_SAMPLES, Topics.JOBS, Topics.NODES), List.of(Topics.JOB_BANDWIDTH, Topics.LINK_HEALTH, Topics.ALERTS, Topics.DEAD_LETTER)));
        roles.put("sink", sink("rdmamon-sink", List.of(Topics.PORT_SAMPLES, Topics.HOST_SAMPLES, Topics.GPU_SAMPLES,
                Topics.JOB_BANDWIDTH, Topics.LINK_HEALTH, Topics.ALERTS), Topics.DEAD_LETTER));
        roles.put("alerts", alerts("rdmamon-alerts", Topics.ALERTS, Topics.DEAD_LETTER));
        return roles;
    }
}
