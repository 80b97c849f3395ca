package io.rdmamon.jobs.k8s;

import io.rdmamon.access.AccessRefusedException;
import io.rdmamon.access.KafkaAccess;
import io.rdmamon.access.RoleAcls;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.rdmamon.config.ConfigOptions;
import io.rdmamon.metrics.MetricsEndpoint;
import org.apache.kafka.clients.producer.ProducerConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code rdmamon jobs watch}: publishes the cluster's training jobs, found from their pods, until stopped. */
@Command(name = "watch", mixinStandardHelpOptions = true,
        description = {"Watch the Kubernetes API for the pods of training jobs (Kubeflow PyTorchJob/MPIJob, Volcano, "
                + "or a job label) and publish one job record per change to the jobs topic.",
                "",
                "  rdmamon jobs watch --bootstrap-servers kafka:9092",
                "  rdmamon jobs watch -c jobs-watch.properties --namespace training",
                "",
                "Kubernetes access as kubectl's: the pod's service account in a cluster, else KUBECONFIG or "
                        + "~/.kube/config. Settings: defaults < --config file < RDMAMON_* environment < --set < flags; see "
                        + "'rdmamon config show jobs-watch'."})
public final class JobsWatchCommand implements Callable<Integer> {
    @Mixin
    ConfigOptions options;

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT,...", description = "Kafka brokers (kafka.bootstrap.servers).")
    String bootstrapServers;

    @Option(names = {"-n", "--namespace"}, description = "Only this namespace (" + JobsWatchConfig.NAMESPACE_CONFIG
            + "; default: all).")
    String namespace;

    @Option(names = {"-l", "--selector"}, paramLabel = "SELECTOR", description = "Label selector applied by the API "
            + "server (" + JobsWatchConfig.LABEL_SELECTOR_CONFIG + ").")
    String selector;

    @Option(names = "--job-label", paramLabel = "KEY", description = "Label whose value names a job, for jobs that are "
            + "neither Kubeflow nor Volcano (" + JobsWatchConfig.JOB_LABEL_CONFIG + ").")
    String jobLabel;

    @Override
    public Integer call() throws Exception {
        Map<String, Object> flags = new HashMap<>();
        flags.put(JobsWatchConfig.KAFKA_PREFIX + ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        flags.put(JobsWatchConfig.NAMESPACE_CONFIG, namespace);
        flags.put(JobsWatchConfig.LABEL_SELECTOR_CONFIG, selector);
        flags.put(JobsWatchConfig.JOB_LABEL_CONFIG, jobLabel);
        JobsWatchConfig config = JobsWatchConfig.load(options.file, System.getenv(), options.withNamedFlags(flags));
        try (MetricsEndpoint metrics = new MetricsEndpoint();
             KubernetesClient client = new KubernetesClientBuilder().build();
             JobsWatcher watcher = start(config, client, metrics)) {
            metrics.serve(config.getString(JobsWatchConfig.METRICS_BIND_CONFIG),
                    config.getInt(JobsWatchConfig.METRICS_PORT_CONFIG));
            Runtime.getRuntime().addShutdownHook(new Thread(watcher::close, "jobs-watch-shutdown"));
            watcher.awaitStop();
            return 0;
        }
    }

    private static JobsWatcher start(JobsWatchConfig config, KubernetesClient client, MetricsEndpoint metrics)
            throws Exception {
        try {
            return JobsWatcher.start(config, client, metrics.registry());
        } catch (RuntimeException e) {
            throw AccessRefusedException.of(KafkaAccess.of(config.readerSettings("jobs-reader"),
                    RoleAcls.jobsWatch(config.topic(), config.podDevicesTopic(),
                    config.nodesTopic())), e);
        }
    }
}
