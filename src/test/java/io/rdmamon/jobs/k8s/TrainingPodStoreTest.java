package io.rdmamon.jobs.k8s;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.rdmamon.jobs.k8s.TrainingPods.crashLooping;
import static io.rdmamon.jobs.k8s.TrainingPods.finished;
import static io.rdmamon.jobs.k8s.TrainingPods.pytorch;
import static io.rdmamon.jobs.k8s.TrainingPods.running;
import static org.assertj.core.api.Assertions.assertThat;

class TrainingPodStoreTest {
    private final PodClassifier classifier = new PodClassifier("rdmamon.io/job", null, new SimpleMeterRegistry());
    private final TrainingPodStore store = new TrainingPodStore(classifier);

    @Test
    void shouldKeepWhatTheClassifierReadsAndDropTheRestWhenATrainingPodIsStored() {
        Pod pending = pytorch("train", "bert", "uid-1", "worker", 2, "node-b");
        for (Pod pod : List.of(pending, running(pending, 2), crashLooping(pending, 3), finished(pending, "Failed"))) {
            Pod full = heavy(pod);
            String key = store.getKey(full);
            store.put(key, full);

            Pod kept = store.get(key);
            assertThat(classifier.classify(kept)).isEqualTo(classifier.classify(full)).isPresent();
            assertThat(kept.getMetadata().getResourceVersion()).isEqualTo("42");
            assertThat(kept.getMetadata().getAnnotations()).isNullOrEmpty();
            assertThat(kept.getMetadata().getManagedFields()).isNullOrEmpty();
            assertThat(kept.getSpec().getContainers()).isNullOrEmpty();
            assertThat(kept.getSpec().getVolumes()).isNullOrEmpty();
        }
        assertThat(store.size()).isEqualTo(1);
        assertThat(store.keySet()).containsExactly("train/bert-worker-2");
    }

    @Test
    void shouldNotKeepAPodThatBelongsToNoTrainingJob() {
        Pod exporter = new PodBuilder().withNewMetadata().withNamespace("kube-system").withName("node-exporter-x")
                .withLabels(Map.of("app", "node-exporter")).endMetadata()
                .withNewSpec().withNodeName("node-b").endSpec().build();

        assertThat(store.put(store.getKey(exporter), exporter)).isNull();
        assertThat(store.put(store.getKey(exporter), exporter)).as("an update is an add to the informer").isNull();
        assertThat(store.size()).isZero();
        assertThat(store.get("kube-system/node-exporter-x")).isNull();
    }

    @Test
    void shouldLetAPodGoWhenItLosesItsTrainingLabels() {
        Pod pod = running(pytorch("train", "bert", "uid-1", "master", 0, "node-a"), 0);
        String key = store.getKey(pod);
        store.put(key, pod);
        Pod relabelled = new PodBuilder(pod).editMetadata().withLabels(Map.of("app", "debug")).endMetadata().build();

        // the informer sends an update with the old pod: its job is rebuilt and finds the pod gone
        Pod before = store.put(key, relabelled);

        assertThat(classifier.uid(before)).contains("uid-1");
        assertThat(store.size()).isZero();
    }

    /** The pod as an API server sends it: annotations, environment and managed fields besides what we read. */
    private static Pod heavy(Pod pod) {
        return new PodBuilder(pod)
                .editMetadata().withResourceVersion("42")
                .withAnnotations(Map.of("kubectl.kubernetes.io/default-container", "pytorch"))
                .withManagedFields(new ManagedFieldsEntryBuilder().withManager("kubelet").withOperation("Update")
                        .withApiVersion("v1").withFieldsType("FieldsV1").build())
                .endMetadata()
                .editSpec().editFirstContainer()
                .addNewEnv().withName("NCCL_IB_HCA").withValue("erdma_0").endEnv()
                .addNewEnv().withName("NCCL_DEBUG").withValue("INFO").endEnv()
                .addNewVolumeMount().withName("dshm").withMountPath("/dev/shm").endVolumeMount()
                .endContainer()
                .addNewVolume().withName("dshm").withNewEmptyDir().withMedium("Memory").endEmptyDir().endVolume()
                .endSpec()
                .build();
    }
}
