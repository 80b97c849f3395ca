package io.rdmamon.jobs.k8s;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;

/**
 * The key of a job's records. The uid of the job object itself when the pod names it as its controlling owner
 * (Kubeflow PyTorchJob/MPIJob and Volcano Job pods do; the owner's name is the job name): a job deleted and created
 * again under the same name is then a new job. Otherwise (jobs found by label, pods without owner) a name-based UUID
 * (RFC 4122 version 3) of {@code <framework>:<namespace>/<job>}, stable across watcher restarts.
 */
final class JobUid {
    private JobUid() {
    }

    static String of(Pod pod, String framework, String namespace, String job) {
        List<OwnerReference> owners = pod.getMetadata().getOwnerReferences();
        if (owners != null) {
            for (OwnerReference owner : owners) {
                if (Boolean.TRUE.equals(owner.getController()) && job.equals(owner.getName())
                        && owner.getUid() != null && !owner.getUid().isBlank()) {
                    return owner.getUid();
                }
            }
        }
        return nameBased(framework, namespace, job);
    }

    static String nameBased(String framework, String namespace, String job) {
        return UUID.nameUUIDFromBytes((framework + ":" + namespace + "/" + job).getBytes(StandardCharsets.UTF_8))
                .toString();
    }
}
