package io.rdmamon.jobs.k8s;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;

import java.util.List;

/**
 * A pod's part in its job's state. A pod whose phase is Running but one of whose containers waits (starting, or
 * restarting after a crash: CrashLoopBackOff) counts as pending: its rank does not run. Phase Unknown (node lost)
 * counts as pending too.
 */
enum PodState {
    PENDING, RUNNING, SUCCEEDED, FAILED;

    static PodState of(Pod pod) {
        PodStatus status = pod.getStatus();
        String phase = status == null ? null : status.getPhase();
        if ("Succeeded".equals(phase)) {
            return SUCCEEDED;
        }
        if ("Failed".equals(phase)) {
            return FAILED;
        }
        if ("Running".equals(phase)) {
            List<ContainerStatus> containers = status.getContainerStatuses();
            boolean waiting = containers != null && containers.stream()
                    .anyMatch(c -> c.getState() != null && c.getState().getWaiting() != null);
            return waiting ? PENDING : RUNNING;
        }
        return PENDING;
    }

    /** Container restarts of the pod so far (all containers). */
    static int restarts(Pod pod) {
        PodStatus status = pod.getStatus();
        if (status == null || status.getContainerStatuses() == null) {
            return 0;
        }
        return status.getContainerStatuses().stream()
                .mapToInt(c -> c.getRestartCount() == null ? 0 : c.getRestartCount()).sum();
    }
}
