package io.rdmamon.detect;

import io.rdmamon.model.JobRecord;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Which rank a GPU belongs to, as the alert names it, with and without the ranks' GPU uuids. */
class GpuRanksTest {
    private static JobRecord.Rank rank(int rank, String node, String... gpus) {
        return new JobRecord.Rank(rank, "job-worker-" + rank, node, List.of("mlx5_" + rank % 2), null, null,
                List.of(gpus));
    }

    @Test
    void shouldNameTheRankWhoseGpusListTheUuid() {
        List<JobRecord.Rank> ranks = List.of(rank(0, "n1", "GPU-a"), rank(1, "n1", "GPU-b"), rank(2, "n2", "GPU-c"));
        List<JobRecord.Rank> of = GpuRanks.of(ranks, "n1", "GPU-b", 1, null);
        assertThat(of).extracting(JobRecord.Rank::rank).containsExactly(1);
        assertThat(GpuRanks.numbers(of)).isEqualTo("1");
        assertThat(GpuRanks.describe(of, "n1", 1, "GPU-b")).isEqualTo("rank 1 (pod job-worker-1, node n1, GPU 1 GPU-b)");
    }

    @Test
    void shouldNameEveryCandidateWhereTheRanksDoNotSayWhichGpusTheyHold() {
        List<JobRecord.Rank> ranks = List.of(rank(2, "n2"), rank(3, "n2"), rank(0, "n1"));
        List<JobRecord.Rank> of = GpuRanks.of(ranks, "n2", "GPU-x", 0, null);
        assertThat(GpuRanks.numbers(of)).isEqualTo("2|3");
        assertThat(GpuRanks.describe(of, "n2", 0, "GPU-x")).isEqualTo("one of ranks 2,3 (node n2, GPU 0 GPU-x)");
        assertThat(GpuRanks.describe(GpuRanks.of(ranks, "n1", null, 0, null), "n1", 0, null))
                .isEqualTo("rank 0 (pod job-worker-0, node n1, GPU 0)");
    }

    @Test
    void shouldSayWhenNoRankOfTheNodeIsKnown() {
        List<JobRecord.Rank> of = GpuRanks.of(List.of(rank(0, "n1", "GPU-a")), "n9", "GPU-z", 0, null);
        assertThat(GpuRanks.numbers(of)).isEqualTo("?");
        assertThat(GpuRanks.describe(of, "n9", 3, "GPU-z")).isEqualTo("an unknown rank (node n9, GPU 3 GPU-z)");
    }
}
