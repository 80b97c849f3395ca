package io.rdmamon.detect;

import io.rdmamon.model.GpuSample;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.JsonSerde;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A job's stall state with its GPUs (ranks, a stopped rank's evidence) as its changelog holds it: read back after a
 * restart of the app, it gives the same verdict.
 */
class StallStateJsonTest {
    @Test
    void shouldGiveTheSameVerdictAfterARoundTripThroughItsChangelogFormat() {
        DetectorConfig cfg = new DetectorConfig(new AbstractConfig(DetectorConfig.define(new ConfigDef()), Map.of()));
        StallState s = StallState.of("uid-a", "job-a", "team-a");
        s.gpus.ranks(List.of(new JobRecord.Rank(0, "p0", "n1", List.of("erdma_0"), null, null, List.of("GPU-0")),
                new JobRecord.Rank(1, "p1", "n1", List.of("erdma_1"), null, null, List.of("GPU-1"))));
        for (long ts = 1_000; ts <= 6_000; ts += 1_000) {
            s.gpus.observe(new GpuSample(GpuSample.VERSION, "n1", 0, "GPU-0", ts, 1_000, 0.0, 0.0, 120.0, 1_980.0, 1)
                    .withProcessActivity(0.01, 0.0, 0.0, "T"), cfg);
            s.gpus.observe(new GpuSample(GpuSample.VERSION, "n1", 1, "GPU-1", ts, 1_000, 100.0, 0.0, 125.0, 1_980.0,
                    1), cfg);
        }
        JsonSerde<StallState> serde = JsonSerde.of(StallState.class);
        StallState back = serde.deserializer().deserialize("t", serde.serializer().serialize("t", s));

        GpuActivity.Verdict before = s.gpus.stall(6_000, 1_000, List.of("n1"), cfg, "uid-a", "job a");
        GpuActivity.Verdict after = back.gpus.stall(6_000, 1_000, List.of("n1"), cfg, "uid-a", "job a");
        assertThat(before.condition()).isNotNull();
        assertThat(after).isEqualTo(before);
        assertThat(after.condition().labels()).containsEntry("evidence", GpuActivity.RANK_STUCK)
                .containsEntry("stuckRanks", "0");
    }
}
