package io.rdmamon.jobs.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.support.LogLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Kubernetes side of {@code jobs watch}: a fabric8 pod informer (list, then watch; namespaced or cluster-wide,
 * optionally with a label selector) whose cache holds the training pods ({@link TrainingPodStore}), indexed by job
 * uid. It tells its listener which job's pods changed, and when a complete list has arrived.
 *
 * <p>fabric8 resumes a dropped watch where it was, or re-lists when the API server no longer has that point (HTTP
 * 410); failed calls are retried without end (logged once a minute). During a re-list the cache changes item by
 * item, half old and half new, so {@link #ready()} is false until the whole list is in.
 */
final class PodWatch implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PodWatch.class);
    private static final String JOB_INDEX = "rdmamon-job-uid";

    interface Listener {
        /** The pods of job {@code uid} changed (called on the informer's thread). */
        void jobChanged(String uid);

        /** A complete pod list is in the cache: at start, and after each re-list. */
        void listed();
    }

    private final KubernetesClient client;
    private final PodClassifier classifier;
    private final SharedIndexInformer<Pod> informer;
    private final Counter errors;
    private final Counter lists;
    private final LogLimiter logLimiter = new LogLimiter(Duration.ofMinutes(1));
    private final String scope;
    private volatile boolean relisting;
    private volatile long startedNanos;

    PodWatch(KubernetesClient client, String namespace, String labelSelector, PodClassifier classifier,
             Listener listener, MeterRegistry registry) {
        this.client = client;
        this.classifier = classifier;
        this.scope = (namespace == null ? "all namespaces" : "namespace " + namespace)
                + (labelSelector == null ? "" : " with selector " + labelSelector);
        var pods = namespace == null ? client.pods().inAnyNamespace() : client.pods().inNamespace(namespace);
        this.informer = (labelSelector == null ? pods : pods.withLabelSelector(labelSelector)).runnableInformer(0);
        informer.itemStore(new TrainingPodStore(classifier));
        this.errors = Counter.builder("rdmamon.jobs.watch.errors")
                .description("failed list or watch calls to the Kubernetes API (each is retried)").register(registry);
        this.lists = Counter.builder("rdmamon.jobs.watch.lists")
                .description("complete pod lists: one at start, then one per re-list (the API server no longer had "
                        + "the watch's resource version, e.g. after a long disconnect)").register(registry);
        Gauge.builder("rdmamon.jobs.watch.connected", informer, i -> i.isWatching() ? 1 : 0)
                .description("1 while the pod watch is open, 0 while the Kubernetes API is out of reach or re-listed")
                .register(registry);
        informer.addIndexers(Map.of(JOB_INDEX, pod -> classifier.uid(pod).map(List::of).orElse(List.of())));
        informer.addEventHandler(new Events(listener));
        informer.exceptionHandler((started, error) -> {
            errors.increment();
            long suppressed = logLimiter.admit("watch");
            if (suppressed != LogLimiter.SUPPRESS) {
                log.warn("Kubernetes API: {}; retrying (jobs stay as last published){}", error.toString(),
                        LogLimiter.suffix(suppressed));
            }
            return true;
        });
    }

    void start() {
        startedNanos = System.nanoTime();
        log.info("listing pods in {} from the Kubernetes API at {}", scope, client.getMasterUrl());
        informer.start().whenComplete((ok, error) -> {
            if (error == null) {
                log.info("watching pods in {}: {} training pods listed", scope, informer.getStore().list().size());
            }
        });
    }

    /** Whether the cache holds one complete list (and the events since). */
    boolean ready() {
        return informer.hasSynced() && !relisting;
    }

    /** Whether no list has arrived yet since start. */
    boolean waitingForFirstList() {
        return !informer.hasSynced();
    }

    Duration sinceStart() {
        return Duration.ofNanos(System.nanoTime() - startedNanos);
    }

    List<TrainingPod> jobPods(String uid) {
        return informer.getIndexer().byIndex(JOB_INDEX, uid).stream().map(classifier::classify)
                .flatMap(Optional::stream).filter(p -> p.uid().equals(uid)).toList();
    }

    Set<String> jobUids() {
        Set<String> uids = new HashSet<>();
        informer.getStore().list().forEach(pod -> classifier.uid(pod).ifPresent(uids::add));
        return uids;
    }

    /** The job of the pod {@code namespace/name}, if it is a training pod the cache holds. */
    Optional<String> jobOf(String namespacedPod) {
        Pod pod = informer.getStore().getByKey(namespacedPod);
        return pod == null ? Optional.empty() : classifier.uid(pod);
    }

    @Override
    public void close() {
        informer.close();
    }

    private final class Events implements ResourceEventHandler<Pod> {
        private final Listener listener;

        Events(Listener listener) {
            this.listener = listener;
        }

        @Override
        public void onAdd(Pod pod) {
            classifier.uid(pod).ifPresent(listener::jobChanged);
        }

        @Override
        public void onUpdate(Pod before, Pod after) {
            classifier.uid(before).ifPresent(listener::jobChanged);
            classifier.uid(after).ifPresent(listener::jobChanged);
        }

        @Override
        public void onDelete(Pod pod, boolean finalStateUnknown) {
            classifier.uid(pod).ifPresent(listener::jobChanged);
        }

        @Override
        public void onBeforeList(String lastSyncResourceVersion) {
            relisting = true;
        }

        @Override
        public void onList(String resourceVersion, boolean remainedEmpty) {
            lists.increment();
            relisting = false;
            listener.listed();
        }
    }
}
