package io.rdmamon.jobs.k8s;

import java.util.Map;

/**
 * A pod of a training job, as far as the job record needs it.
 *
 * @param uid          the job's uid ({@link JobUid})
 * @param framework    how the job was recognised: {@code kubeflow}, {@code volcano} or {@code label}
 * @param replicaType  Kubeflow replica type or Volcano task spec, lower case; empty for label jobs
 * @param index        index within the replica type; null when unknown
 * @param explicitRank rank given by the configured rank label; null when none
 * @param node         {@code spec.nodeName}; null until scheduled
 * @param startedAt    {@code status.startTime} in epoch ms; null until the kubelet took the pod
 * @param platform     monitored in the pod or on its node, and the intended transport ({@link PlatformRules})
 */
record TrainingPod(String uid, String framework, String namespace, String job, String pod, String replicaType,
                   Integer index, Integer explicitRank, String node, PodState state, int restarts, Long startedAt,
                   Map<String, String> labels, PodPlatform platform) {
    TrainingPod {
        platform = platform == null ? PodPlatform.NODE : platform;
    }

    /** A pod on a node of its own, RDMA intended. */
    TrainingPod(String uid, String framework, String namespace, String job, String pod, String replicaType,
                Integer index, Integer explicitRank, String node, PodState state, int restarts, Long startedAt,
                Map<String, String> labels) {
        this(uid, framework, namespace, job, pod, replicaType, index, explicitRank, node, state, restarts, startedAt,
                labels, PodPlatform.NODE);
    }
}
