package io.rdmamon.jobs.k8s;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;

import java.util.List;
import java.util.Map;

/** Pods as the Kubeflow training operator (submitted through Arena) and Volcano create them, in each life stage. */
final class TrainingPods {
    static final String START_TIME = "2025-03-01T08:00:00Z";
    static final long START_MS = 1_740_816_000_000L;

    private TrainingPods() {
    }

    /** A PyTorchJob pod {@code <job>-<type>-<index>} on {@code node}, just scheduled (Pending, kubelet took it). */
    static Pod pytorch(String namespace, String job, String jobUid, String type, int index, String node) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace(namespace)
                .withName(job + "-" + type + "-" + index)
                .withLabels(Map.of(
                        "training.kubeflow.org/job-name", job,
                        "training.kubeflow.org/replica-type", type,
                        "training.kubeflow.org/replica-index", Integer.toString(index),
                        "training.kubeflow.org/operator-name", "pytorchjob-controller",
                        "release", job,
                        "app", "pytorchjob"))
                .addNewOwnerReference()
                .withApiVersion("kubeflow.org/v1").withKind("PyTorchJob").withName(job).withUid(jobUid)
                .withController(true).withBlockOwnerDeletion(true)
                .endOwnerReference()
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .addNewContainer().withName("pytorch").withImage("pytorch:2.3").endContainer()
                .endSpec()
                .withNewStatus().withPhase("Pending").withStartTime(START_TIME)
                .withContainerStatuses(waiting("ContainerCreating", 0))
                .endStatus()
                .build();
    }

    static Pod running(Pod pod, int restarts) {
        return withStatus(pod, "Running", new ContainerStatusBuilder().withName("pytorch").withReady(true)
                .withRestartCount(restarts).withNewState().withNewRunning().withStartedAt(START_TIME).endRunning()
                .endState().build());
    }

    static Pod crashLooping(Pod pod, int restarts) {
        return withStatus(pod, "Running", waiting("CrashLoopBackOff", restarts));
    }

    static Pod finished(Pod pod, String phase) {
        return withStatus(pod, phase, new ContainerStatusBuilder().withName("pytorch").withRestartCount(0)
                .withNewState().withNewTerminated().withExitCode("Failed".equals(phase) ? 1 : 0).endTerminated()
                .endState().build());
    }

    private static ContainerStatus waiting(String reason, int restarts) {
        return new ContainerStatusBuilder().withName("pytorch").withReady(false).withRestartCount(restarts)
                .withNewState().withNewWaiting().withReason(reason).endWaiting().endState().build();
    }

    private static Pod withStatus(Pod pod, String phase, ContainerStatus container) {
        return new PodBuilder(pod).editStatus().withPhase(phase).withContainerStatuses(List.of(container))
                .endStatus().build();
    }
}
