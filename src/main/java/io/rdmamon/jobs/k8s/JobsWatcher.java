package io.rdmamon.jobs.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.collector.eadm.LogLimiter;
import io.rdmamon.model.JobRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Publishes the training jobs of a Kubernetes cluster to the jobs topic: a pod informer (list, then watch) feeds one
 * builder thread, which rebuilds the record of each job whose pods changed and sends it only when it differs from
 * the last one sent ({@link PublishedJobs}). When a job's last pod is gone, a Deleted record follows.
 *
 * <p>Disconnects: fabric8's informer resumes the watch where it was, or re-lists when the API server no longer has
 * that point (HTTP 410), with endless retries; a re-list removes the pods that vanished meanwhile from its cache and
 * tells us (so their jobs get Deleted). After every re-list, and every {@code jobs.watch.reconcile.ms}, all jobs are
 * compared with what was sent: unchanged ones are not sent again. At start the last records are read back from the
 * topic, so a restart behaves the same.
 */
public final class JobsWatcher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(JobsWatcher.class);
    private static final String JOB_INDEX = "rdmamon-job-uid";

    private final PodClassifier classifier;
    private final JobAssembler assembler;
    private final PublishedJobs published;
    private final JobsPublisher publisher;
    private final Clock clock;
    private final Counter watchErrors;
    private final Counter lists;
    private final LogLimiter logLimiter = new LogLimiter(Duration.ofMinutes(1));
    private final ScheduledExecutorService builder =
            Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "jobs-builder"));
    private final Set<String> queued = ConcurrentHashMap.newKeySet();
    private final Map<String, RankRule.Shape> shapes = new HashMap<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile JobAssembler.DeviceSource devices = (node, namespace, pod) -> null;
    private volatile PodDevicesView devicesView;
    private volatile SharedIndexInformer<Pod> informer;
    private volatile long startedNanos;

    private JobsWatcher(JobsWatchConfig config, PublishedJobs published, MeterRegistry registry, Clock clock) {
        this.classifier = new PodClassifier(config.jobLabel(), config.rankLabel(), registry);
        this.assembler = new JobAssembler(new RankRule(config.rankOrder(), Set.copyOf(config.rankSkip())));
        this.published = published;
        this.publisher = new JobsPublisher(config.producerSettings(), config.topic(), registry);
        this.clock = clock;
        this.watchErrors = Counter.builder("rdmamon.jobs.watch.errors")
                .description("failed list or watch calls to the Kubernetes API (each is retried)").register(registry);
        this.lists = Counter.builder("rdmamon.jobs.watch.lists")
                .description("complete pod lists: one at start, then one per re-list (the API server no longer had "
                        + "the watch's resource version, e.g. after a long disconnect)").register(registry);
    }

    /**
     * Reads back the jobs topic (and the pod devices), then starts watching pods. Returns once the informer is
     * started; the first records follow when its first list completes.
     */
    public static JobsWatcher start(JobsWatchConfig config, KubernetesClient client, MeterRegistry registry)
            throws Exception {
        PublishedJobs published = PublishedJobs.readBack(config.readerSettings("jobs-reader"), config.topic(),
                config.namespace(), config.startupTimeout());
        JobsWatcher watcher = new JobsWatcher(config, published, registry, Clock.systemUTC());
        try {
            watcher.startDevices(config, registry);
            watcher.startInformer(config, client);
        } catch (Exception | Error e) {
            watcher.close();
            throw e;
        }
        return watcher;
    }

    private void startDevices(JobsWatchConfig config, MeterRegistry registry) throws InterruptedException {
        String topic = config.podDevicesTopic();
        if (topic == null) {
            log.info("no pod devices topic: ranks carry no devices");
            return;
        }
        PodDevicesView view = new PodDevicesView(config.readerSettings("pod-devices"), topic, this::podDevicesChanged,
                registry);
        devicesView = view;
        devices = view;
        if (!view.awaitCaughtUp(config.startupTimeout())) {
            log.warn("pod devices not read to the end of {} within {} s; going on, devices follow as they are read",
                    topic, config.startupTimeout().toSeconds());
        }
    }

    private void startInformer(JobsWatchConfig config, KubernetesClient client) {
        var pods = config.namespace() == null ? client.pods().inAnyNamespace()
                : client.pods().inNamespace(config.namespace());
        SharedIndexInformer<Pod> pending = (config.labelSelector() == null ? pods
                : pods.withLabelSelector(config.labelSelector())).runnableInformer(0);
        pending.addIndexers(Map.of(JOB_INDEX, pod -> classifier.uid(pod).map(List::of).orElse(List.of())));
        pending.addEventHandler(new PodEvents());
        pending.exceptionHandler((started, error) -> {
            watchErrors.increment();
            long suppressed = logLimiter.admit("watch");
            if (suppressed != LogLimiter.SUPPRESS) {
                log.warn("Kubernetes API: {}; retrying (jobs stay as last published){}", error.toString(),
                        LogLimiter.suffix(suppressed));
            }
            return true;
        });
        informer = pending;
        startedNanos = System.nanoTime();
        log.info("listing pods from the Kubernetes API at {}", client.getMasterUrl());
        pending.start().whenComplete((ok, error) -> {
            if (error == null) {
                log.info("watching pods in {}{}: {} pods listed", config.namespace() == null ? "all namespaces"
                        : "namespace " + config.namespace(), config.labelSelector() == null ? ""
                        : " with selector " + config.labelSelector(), pending.getStore().list().size());
            }
        });
        long every = config.reconcileInterval().toMillis();
        builder.scheduleWithFixedDelay(this::reconcileAll, every, every, TimeUnit.MILLISECONDS);
    }

    /** Blocks until {@link #close()}. */
    public void awaitStop() throws InterruptedException {
        stopped.await();
    }

    private final class PodEvents implements ResourceEventHandler<Pod> {
        @Override
        public void onAdd(Pod pod) {
            classifier.uid(pod).ifPresent(JobsWatcher.this::enqueue);
        }

        @Override
        public void onUpdate(Pod before, Pod after) {
            classifier.uid(before).ifPresent(JobsWatcher.this::enqueue);
            classifier.uid(after).ifPresent(JobsWatcher.this::enqueue);
        }

        @Override
        public void onDelete(Pod pod, boolean finalStateUnknown) {
            classifier.uid(pod).ifPresent(JobsWatcher.this::enqueue);
        }

        @Override
        public void onList(String resourceVersion, boolean remainedEmpty) {
            lists.increment();
            builder.execute(JobsWatcher.this::reconcileAll);
        }
    }

    private void podDevicesChanged(Set<String> namespacedPods) {
        SharedIndexInformer<Pod> current = informer;
        if (current == null) {
            return; // the first reconcile reads every device anyway
        }
        for (String key : namespacedPods) {
            Pod pod = current.getStore().getByKey(key);
            if (pod != null) {
                classifier.uid(pod).ifPresent(this::enqueue);
            }
        }
    }

    /** Rebuilds a job on the builder thread; a job queued several times before its turn is rebuilt once. */
    private void enqueue(String uid) {
        if (queued.add(uid)) {
            builder.execute(() -> {
                queued.remove(uid);
                rebuild(uid);
            });
        }
    }

    private void reconcileAll() {
        SharedIndexInformer<Pod> current = informer;
        if (current == null) {
            return;
        }
        if (!current.hasSynced()) {
            // fabric8 retries a failing list for minutes before it reports: say that we wait, and for how long
            log.warn("no pod list from the Kubernetes API yet ({} s since start); still trying",
                    TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedNanos));
            return;
        }
        Set<String> uids = new HashSet<>(published.uids());
        current.getStore().list().forEach(pod -> classifier.uid(pod).ifPresent(uids::add));
        uids.forEach(this::rebuild);
    }

    private void rebuild(String uid) {
        try {
            SharedIndexInformer<Pod> current = informer;
            if (current == null || !current.hasSynced()) {
                return; // a partial cache would publish partial jobs; the reconcile after the list covers it
            }
            List<TrainingPod> pods = current.getIndexer().byIndex(JOB_INDEX, uid).stream()
                    .map(classifier::classify).flatMap(Optional::stream).filter(p -> p.uid().equals(uid)).toList();
            JobRecord last = published.get(uid);
            long now = clock.millis();
            JobRecord next;
            if (pods.isEmpty()) {
                shapes.remove(uid);
                if (last == null) {
                    return;
                }
                next = JobAssembler.deleted(last, now);
            } else {
                next = assembler.assemble(pods, shapes.computeIfAbsent(uid, u -> new RankRule.Shape()), devices, now);
            }
            if (!published.mustSend(next)) {
                return;
            }
            if (last != null && next.updatedAt() <= last.updatedAt()) {
                // the versioned job table orders a job's records by timestamp: keep them strictly increasing
                next = withUpdatedAt(next, last.updatedAt() + 1);
            }
            publisher.send(next, this::sendFailed);
            published.remember(next);
        } catch (RuntimeException e) {
            log.error("rebuilding job {} failed; the next reconcile tries again: {}", uid, e.toString(), e);
        }
    }

    /** On the producer's thread. */
    private void sendFailed(JobRecord job) {
        try {
            builder.execute(() -> published.unsent(job));
        } catch (RejectedExecutionException e) {
            log.warn("job {} ({}/{}) state {} not published before shutdown", job.uid(), job.namespace(), job.job(),
                    job.state());
        }
    }

    private static JobRecord withUpdatedAt(JobRecord r, long updatedAt) {
        return new JobRecord(r.v(), r.uid(), r.job(), r.namespace(), r.state(), updatedAt, r.startedAt(),
                r.worldSize(), r.ranks(), r.labels());
    }

    /** Stops watching; what was handed to the producer is still delivered (up to 10 s). Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        SharedIndexInformer<Pod> current = informer;
        if (current != null) {
            current.close();
        }
        PodDevicesView view = devicesView;
        if (view != null) {
            view.close();
        }
        builder.shutdown();
        try {
            builder.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        publisher.close();
        log.info("jobs watch stopped");
        stopped.countDown();
    }
}
