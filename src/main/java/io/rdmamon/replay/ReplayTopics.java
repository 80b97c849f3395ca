package io.rdmamon.replay;

import io.rdmamon.model.Topics;

import java.util.List;

/** The topic names the replayed topology reads and writes, as configured for it (default: {@link Topics}). */
public record ReplayTopics(String jobs, String portSamples, String hostSamples, String gpuSamples, String alerts,
                           String jobBandwidth, String linkHealth, String deadLetter) {

    public static final ReplayTopics DEFAULT = new ReplayTopics(Topics.JOBS, Topics.PORT_SAMPLES,
            Topics.HOST_SAMPLES, Topics.GPU_SAMPLES, Topics.ALERTS, Topics.JOB_BANDWIDTH, Topics.LINK_HEALTH,
            Topics.DEAD_LETTER);

    public String input(InputKind kind) {
        return switch (kind) {
            case JOBS -> jobs;
            case PORT_SAMPLES -> portSamples;
            case HOST_SAMPLES -> hostSamples;
            case GPU_SAMPLES -> gpuSamples;
        };
    }

    /** The output topics a replay collects. */
    public List<String> outputs() {
        return List.of(alerts, jobBandwidth, linkHealth, deadLetter);
    }
}
