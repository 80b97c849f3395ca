package io.rdmamon.jobs.k8s;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.model.JobRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Publishes the training jobs of a Kubernetes cluster to the jobs topic. The pod watch ({@link PodWatch}) and the
 * pod devices ({@link PodDevicesView}) say which job changed; one builder thread rebuilds that job's record and sends
 * it only when it differs from the last one sent ({@link PublishedJobs}). When a job's last pod is gone, a Deleted
 * record follows.
 *
 * <p>After every complete list (at start and after a re-list, which also reports the pods that vanished while
 * disconnected) and every {@code jobs.watch.reconcile.ms}, all jobs are compared with what was sent; unchanged ones
 * are not sent again. At start the last records are read back from the topic, so a restart behaves the same.
 */
public final class JobsWatcher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(JobsWatcher.class);

    private final JobAssembler assembler;
    private final PublishedJobs published;
    private final JobsPublisher publisher;
    private final Clock clock;
    private final ScheduledExecutorService builder =
            Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "jobs-builder"));
    private final Set<String> queued = ConcurrentHashMap.newKeySet();
    private final Map<String, RankRule.Shape> shapes = new HashMap<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final AtomicBoolean closed = new AtomicBoolean();
    private final PodWatch pods;
    private volatile JobAssembler.DeviceSource devices = (node, namespace, pod) -> null;
    private volatile PodDevicesView devicesView;
    /** Node instance types; null when no label is configured. */
    private volatile NodeInstanceTypes nodes;
    private final AtomicBoolean reconcileQueued = new AtomicBoolean();

    private JobsWatcher(JobsWatchConfig config, KubernetesClient client, PublishedJobs published,
                        MeterRegistry registry, Clock clock) {
        this.assembler = new JobAssembler(new RankRule(config.rankOrder(), Set.copyOf(config.rankSkip())));
        this.published = published;
        this.publisher = new JobsPublisher(config.producerSettings(), config.topic(), registry);
        this.clock = clock;
        this.pods = new PodWatch(client, config.namespace(), config.labelSelector(),
                new PodClassifier(config.jobLabel(), config.rankLabel(), config.platformRules(), registry), new PodWatch.Listener() {
                    @Override
                    public void jobChanged(String uid) {
                        enqueue(uid);
                    }

                    @Override
                    public void listed() {
                        builder.execute(JobsWatcher.this::reconcileAll);
                    }
                }, registry);
    }

    /**
     * Reads back the jobs topic (and the pod devices), then starts watching pods. Returns once the watch is started;
     * the first records follow when its first list completes.
     */
    public static JobsWatcher start(JobsWatchConfig config, KubernetesClient client, MeterRegistry registry)
            throws Exception {
        PublishedJobs published = PublishedJobs.readBack(config.readerSettings("jobs-reader"), config.topic(),
                config.namespace(), config.startupTimeout());
        JobsWatcher watcher = new JobsWatcher(config, client, published, registry, Clock.systemUTC());
        try {
            watcher.startDevices(config, registry);
            watcher.startNodes(config, client);
            watcher.pods.start();
            long every = config.reconcileInterval().toMillis();
            watcher.builder.scheduleWithFixedDelay(watcher::reconcileAll, every, every, TimeUnit.MILLISECONDS);
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
        PodDevicesView view = new PodDevicesView(config.readerSettings("pod-devices"), topic,
                changed -> changed.forEach(pod -> pods.jobOf(pod).ifPresent(this::enqueue)), registry);
        devicesView = view;
        devices = view;
        if (!view.awaitCaughtUp(config.startupTimeout())) {
            log.warn("pod devices not read to the end of {} within {} s; going on, devices follow as they are read",
                    topic, config.startupTimeout().toSeconds());
        }
    }

    /**
     * Node instance types, listed before the pods so that the first records carry them. A node whose label changes
     * later brings one reconcile of all jobs (only those whose record changed are sent). The same node watch
     * publishes nodes that are deleted and added ({@link NodePresence}) when there is a nodes topic.
     */
    private void startNodes(JobsWatchConfig config, KubernetesClient client) throws Exception {
        String label = config.instanceTypeLabel();
        if (label == null) {
            log.info("no instance type label: ranks carry no instance type");
        }
        NodePresence presence = config.nodesTopic() == null ? null : NodePresence.readBack(
                config.readerSettings("nodes-reader"), config.nodesTopic(), publisher, clock,
                config.startupTimeout());
        if (label == null && presence == null) {
            return;
        }
        NodeInstanceTypes view = new NodeInstanceTypes(client, label, () -> {
            if (reconcileQueued.compareAndSet(false, true)) {
                builder.execute(() -> {
                    reconcileQueued.set(false);
                    reconcileAll();
                });
            }
        }, presence);
        nodes = view;
        view.start(config.startupTimeout());
    }

    private JobAssembler.InstanceTypeSource instanceTypes() {
        NodeInstanceTypes view = nodes;
        return view == null ? JobAssembler.InstanceTypeSource.NONE : view;
    }

    /** Blocks until {@link #close()}. */
    public void awaitStop() throws InterruptedException {
        stopped.await();
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
        if (pods.waitingForFirstList()) {
            // fabric8 retries a failing list for minutes before it reports: say that we wait, and for how long
            log.warn("no pod list from the Kubernetes API yet ({} s since start); still trying",
                    pods.sinceStart().toSeconds());
            return;
        }
        if (!pods.ready()) {
            return; // a re-list is under way; its end brings a reconcile
        }
        NodeInstanceTypes nodeView = nodes;
        if (nodeView != null) {
            nodeView.reconcile();
        }
        Set<String> uids = new HashSet<>(published.uids());
        uids.addAll(pods.jobUids());
        uids.forEach(this::rebuild);
    }

    private void rebuild(String uid) {
        try {
            if (!pods.ready()) {
                return; // a partial cache would publish partial jobs; the reconcile after the list covers it
            }
            List<TrainingPod> jobPods = pods.jobPods(uid);
            JobRecord last = published.get(uid);
            long now = clock.millis();
            JobRecord next;
            if (jobPods.isEmpty()) {
                shapes.remove(uid);
                if (last == null) {
                    return;
                }
                next = JobAssembler.deleted(last, now);
            } else {
                next = assembler.assemble(jobPods, shapes.computeIfAbsent(uid, u -> new RankRule.Shape()), devices,
                        instanceTypes(), now);
            }
            if (!published.mustSend(next)) {
                return;
            }
            if (last != null && next.updatedAt() <= last.updatedAt()) {
                // the versioned job table orders a job's records by timestamp: keep them strictly increasing
                next = JobAssembler.withUpdatedAt(next, last.updatedAt() + 1);
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

    /** Stops watching; what was handed to the producer is still delivered (up to 10 s). Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        pods.close();
        NodeInstanceTypes nodeView = nodes;
        if (nodeView != null) {
            nodeView.close();
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
