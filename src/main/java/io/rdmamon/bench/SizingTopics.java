package io.rdmamon.bench;

import io.rdmamon.sink.SinkConfig;
import io.rdmamon.streams.StreamsAppConfig;
import io.rdmamon.support.KafkaOffsets;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

/** The topics of one sizing run, named with the run's id so that runs against a shared broker never meet. */
record SizingTopics(String portSamples, String hostSamples, String gpuSamples, String jobs, String jobBandwidth,
                    String linkHealth, String alerts, String deadLetter) {

    static SizingTopics forRun(String run) {
        return new SizingTopics("rdma.port-samples." + run, "rdma.host-samples." + run, "rdma.gpu-samples." + run,
                "rdma.jobs." + run,
                "rdma.job-bandwidth." + run, "rdma.link-health." + run, "rdma.alerts." + run,
                "rdma.dead-letter." + run);
    }

    /** Whether the stream app of {@code appId} writes {@code topic}: an output, or an internal topic of its own. */
    boolean writtenBy(String appId, String topic) {
        return topic.equals(jobBandwidth) || topic.equals(linkHealth) || topic.equals(alerts)
                || topic.equals(deadLetter) || topic.startsWith(appId + "-");
    }

    boolean isSamples(String topic) {
        return topic.equals(portSamples) || topic.equals(hostSamples) || topic.equals(gpuSamples);
    }

    /** Creates the inputs with {@code partitions} partitions (the job topic compacted); the app creates its outputs. */
    void createInputs(Admin admin, int partitions) throws ExecutionException, InterruptedException {
        KafkaOffsets.createTopics(admin, List.of(
                new NewTopic(portSamples, partitions, (short) 1),
                new NewTopic(hostSamples, partitions, (short) 1),
                new NewTopic(gpuSamples, partitions, (short) 1),
                new NewTopic(jobs, partitions, (short) 1).configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG,
                        TopicConfig.CLEANUP_POLICY_COMPACT))));
    }

    List<String> streamsSettings() {
        return settings(Map.of(StreamsAppConfig.PORT_SAMPLES_TOPIC_CONFIG, portSamples,
                StreamsAppConfig.HOST_SAMPLES_TOPIC_CONFIG, hostSamples,
                StreamsAppConfig.GPU_SAMPLES_TOPIC_CONFIG, gpuSamples, StreamsAppConfig.JOBS_TOPIC_CONFIG, jobs,
                StreamsAppConfig.JOB_BANDWIDTH_TOPIC_CONFIG, jobBandwidth,
                StreamsAppConfig.LINK_HEALTH_TOPIC_CONFIG, linkHealth, StreamsAppConfig.ALERTS_TOPIC_CONFIG, alerts,
                StreamsAppConfig.DEAD_LETTER_TOPIC_CONFIG, deadLetter));
    }

    List<String> sinkSettings() {
        return settings(Map.of(SinkConfig.TOPIC_PORT_SAMPLES_CONFIG, portSamples,
                SinkConfig.TOPIC_HOST_SAMPLES_CONFIG, hostSamples, SinkConfig.TOPIC_GPU_SAMPLES_CONFIG, gpuSamples,
                SinkConfig.TOPIC_JOB_BANDWIDTH_CONFIG, jobBandwidth,
                SinkConfig.TOPIC_LINK_HEALTH_CONFIG, linkHealth, SinkConfig.TOPIC_ALERTS_CONFIG, alerts,
                SinkConfig.TOPIC_DEAD_LETTER_CONFIG, deadLetter));
    }

    /** What the sink reads. */
    List<String> sinkInputs() {
        return List.of(portSamples, hostSamples, gpuSamples, jobBandwidth, linkHealth, alerts);
    }

    private static List<String> settings(Map<String, String> keys) {
        List<String> args = new ArrayList<>();
        keys.forEach((k, v) -> args.addAll(List.of("--set", k + "=" + v)));
        return args;
    }
}
