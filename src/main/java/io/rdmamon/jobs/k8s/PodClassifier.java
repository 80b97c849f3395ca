package io.rdmamon.jobs.k8s;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.support.LogLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Tells whether a pod belongs to a training job, and which. First match wins:
 * <ol>
 *   <li>Kubeflow (PyTorchJob, MPIJob, ...; Arena submits these): {@value #KUBEFLOW_JOB}, {@value #KUBEFLOW_TYPE},
 *       {@value #KUBEFLOW_INDEX};</li>
 *   <li>Volcano: {@value #VOLCANO_JOB}, {@value #VOLCANO_TASK}, {@value #VOLCANO_INDEX};</li>
 *   <li>the configured job label ({@code jobs.watch.job.label}), with the optional rank label.</li>
 * </ol>
 * An index label that is missing or not a number falls back to the number ending the pod name ({@code -3}); a bad
 * label is logged and counted ({@code rdmamon.jobs.watch.bad.labels}), the pod is still used.
 */
final class PodClassifier {
    static final String KUBEFLOW_JOB = "training.kubeflow.org/job-name";
    static final String KUBEFLOW_TYPE = "training.kubeflow.org/replica-type";
    static final String KUBEFLOW_INDEX = "training.kubeflow.org/replica-index";
    static final String VOLCANO_JOB = "volcano.sh/job-name";
    static final String VOLCANO_TASK = "volcano.sh/task-spec";
    static final String VOLCANO_INDEX = "volcano.sh/task-index";
    static final String KUBEFLOW = "kubeflow";
    static final String VOLCANO = "volcano";
    static final String LABEL = "label";

    private static final Logger log = LoggerFactory.getLogger(PodClassifier.class);
    private static final Pattern NAME_INDEX = Pattern.compile("-(\\d{1,9})$");

    private final String jobLabel;
    private final String rankLabel;
    private final Counter badLabels;
    private final PlatformRules platforms;
    private final LogLimiter logLimiter = new LogLimiter(Duration.ofMinutes(1));

    /** {@code jobLabel}, {@code rankLabel}: null when not configured. */
    PodClassifier(String jobLabel, String rankLabel, MeterRegistry registry) {
        this(jobLabel, rankLabel, PlatformRules.NONE, registry);
    }

    PodClassifier(String jobLabel, String rankLabel, PlatformRules platforms, MeterRegistry registry) {
        this.jobLabel = jobLabel;
        this.rankLabel = rankLabel;
        this.platforms = platforms;
        this.badLabels = Counter.builder("rdmamon.jobs.watch.bad.labels")
                .description("reads of a training pod index or rank label that is not a non-negative integer (a pod is "
                        + "read at each of its events)")
                .register(registry);
    }

    Optional<TrainingPod> classify(Pod pod) {
        ObjectMeta meta = pod.getMetadata();
        Map<String, String> labels = meta.getLabels() == null ? Map.of() : meta.getLabels();
        if (present(labels.get(KUBEFLOW_JOB))) {
            return Optional.of(training(pod, KUBEFLOW, labels.get(KUBEFLOW_JOB), labels.get(KUBEFLOW_TYPE),
                    labels, KUBEFLOW_INDEX, null));
        }
        if (present(labels.get(VOLCANO_JOB))) {
            return Optional.of(training(pod, VOLCANO, labels.get(VOLCANO_JOB), labels.get(VOLCANO_TASK),
                    labels, VOLCANO_INDEX, null));
        }
        if (jobLabel != null && present(labels.get(jobLabel))) {
            return Optional.of(training(pod, LABEL, labels.get(jobLabel), null, labels, null, rankLabel));
        }
        return Optional.empty();
    }

    /** The job uid of a training pod, empty for other pods (the informer's index function). */
    Optional<String> uid(Pod pod) {
        return classify(pod).map(TrainingPod::uid);
    }

    private TrainingPod training(Pod pod, String framework, String job, String replicaType,
                                 Map<String, String> labels, String indexLabel, String explicitRankLabel) {
        ObjectMeta meta = pod.getMetadata();
        String namespace = meta.getNamespace();
        String type = replicaType == null ? "" : replicaType.trim().toLowerCase(Locale.ROOT);
        Integer index = indexLabel == null ? null : number(pod, indexLabel, labels.get(indexLabel));
        if (index == null) {
            index = nameIndex(meta.getName());
        }
        Integer explicitRank = explicitRankLabel == null ? null
                : number(pod, explicitRankLabel, labels.get(explicitRankLabel));
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        PodPlatform platform = platforms.of(labels, meta.getAnnotations() == null ? Map.of() : meta.getAnnotations());
        return new TrainingPod(JobUid.of(pod, framework, namespace, job), framework, namespace, job, meta.getName(),
                type, index, explicitRank, present(node) ? node : null, PodState.of(pod), PodState.restarts(pod),
                startTime(pod), labels, platform);
    }

    private Integer number(Pod pod, String label, String value) {
        if (value == null) {
            return null;
        }
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        badLabels.increment();
        long suppressed = logLimiter.admit(label);
        if (suppressed != LogLimiter.SUPPRESS) {
            log.warn("pod {}/{}: label {}='{}' is not a non-negative integer; using the pod name's number instead{}",
                    pod.getMetadata().getNamespace(), pod.getMetadata().getName(), label, value,
                    LogLimiter.suffix(suppressed));
        }
        return null;
    }

    private static Integer nameIndex(String podName) {
        Matcher m = NAME_INDEX.matcher(podName);
        return m.find() ? Integer.valueOf(m.group(1)) : null;
    }

    private static Long startTime(Pod pod) {
        String start = pod.getStatus() == null ? null : pod.getStatus().getStartTime();
        if (start == null) {
            return null;
        }
        try {
            return Instant.parse(start).toEpochMilli();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static boolean present(String value) {
        return value != null && !value.isBlank();
    }
}
