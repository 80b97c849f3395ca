package io.rdmamon.jobs.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.rdmamon.jobs.k8s.TrainingPods.pytorch;
import static org.assertj.core.api.Assertions.assertThat;

class PodClassifierTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final PodClassifier classifier = new PodClassifier("rdmamon.io/job", "rdmamon.io/rank", registry);

    private static Pod pod(String name, Map<String, String> labels) {
        return new PodBuilder().withNewMetadata().withNamespace("ml").withName(name).withLabels(labels).endMetadata()
                .withNewSpec().withNodeName("node-1").endSpec().build();
    }

    @Test
    void shouldTakeTheJobObjectsUidAndTheReplicaLabelsWhenTheOperatorOwnsThePod() {
        TrainingPod p = classifier.classify(pytorch("train", "bert", "5f0c7d9e-uid", "Worker", 2, "node-b")).orElseThrow();

        assertThat(p.uid()).isEqualTo("5f0c7d9e-uid");
        assertThat(p.framework()).isEqualTo("kubeflow");
        assertThat(p.namespace()).isEqualTo("train");
        assertThat(p.job()).isEqualTo("bert");
        assertThat(p.pod()).isEqualTo("bert-Worker-2");
        assertThat(p.replicaType()).isEqualTo("worker");
        assertThat(p.index()).isEqualTo(2);
        assertThat(p.node()).isEqualTo("node-b");
        assertThat(p.state()).isEqualTo(PodState.PENDING);
        assertThat(p.startedAt()).isEqualTo(TrainingPods.START_MS);
    }

    @Test
    void shouldFindVolcanoTasksAndTakeTheIndexFromTheNameWhenTheIndexLabelIsMissing() {
        TrainingPod withIndex = classifier.classify(pod("llm-worker-7", Map.of("volcano.sh/job-name", "llm",
                "volcano.sh/task-spec", "worker", "volcano.sh/task-index", "3"))).orElseThrow();
        TrainingPod fromName = classifier.classify(pod("llm-worker-7", Map.of("volcano.sh/job-name", "llm",
                "volcano.sh/task-spec", "worker"))).orElseThrow();

        assertThat(withIndex.framework()).isEqualTo("volcano");
        assertThat(withIndex.replicaType()).isEqualTo("worker");
        assertThat(withIndex.index()).isEqualTo(3);
        assertThat(fromName.index()).isEqualTo(7);
    }

    @Test
    void shouldNameTheJobByTheConfiguredLabelWithAStableNameBasedUidWhenNoOwnerNamesIt() {
        TrainingPod p = classifier.classify(pod("ft-a", Map.of("rdmamon.io/job", "llama-ft", "rdmamon.io/rank", "4")))
                .orElseThrow();

        assertThat(p.framework()).isEqualTo("label");
        assertThat(p.job()).isEqualTo("llama-ft");
        assertThat(p.explicitRank()).isEqualTo(4);
        assertThat(p.index()).isNull();
        // MD5 name-based UUID of "label:ml/llama-ft": the documented rule, pinned (keys of a compacted topic)
        assertThat(p.uid()).isEqualTo("cc335a88-d1ae-36ba-a670-84b6f700cf66");
        assertThat(JobUid.nameBased("label", "ml", "llama-ft")).isNotEqualTo(JobUid.nameBased("label", "ml2", "llama-ft"));
    }

    @Test
    void shouldPreferKubeflowLabelsAndIgnorePodsOfNoTrainingJob() {
        Pod both = pod("x-worker-0", Map.of("training.kubeflow.org/job-name", "x", "volcano.sh/job-name", "y",
                "rdmamon.io/job", "z"));

        assertThat(classifier.classify(both).orElseThrow().job()).isEqualTo("x");
        assertThat(classifier.classify(pod("nginx-5d8f", Map.of("app", "nginx")))).isEmpty();
        assertThat(new PodClassifier(null, null, registry).classify(pod("ft-a", Map.of("rdmamon.io/job", "z"))))
                .isEmpty();
    }

    @Test
    void shouldCountABadIndexLabelAndFallBackToThePodNameWhenTheLabelIsNotANumber() {
        TrainingPod p = classifier.classify(pod("bert-worker-5", Map.of("training.kubeflow.org/job-name", "bert",
                "training.kubeflow.org/replica-type", "worker", "training.kubeflow.org/replica-index", "five")))
                .orElseThrow();

        assertThat(p.index()).isEqualTo(5);
        assertThat(registry.get("rdmamon.jobs.watch.bad.labels").counter().count()).isEqualTo(1);
    }
}
