package io.rdmamon.model;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Each form of GPU id the kubelet's pod-resources gives, against the sample of the GPU it names and another's. */
class GpuIdsTest {
    private static final String UUID = "GPU-fa2badef-49a9-1483-88ed-34afc018aeb1";
    private static final String OTHER = "GPU-74f94dfb-ad46-d469-fbb0-c0b2e470c1d7";
    private static final String MIG = "MIG-8c4e5b1a-2f3d-5e6f-9a0b-1c2d3e4f5a6b";

    private static GpuSample sample(int index, String uuid, List<String> mig) {
        return new GpuSample(1, "gpu-node-1", index, uuid, 1_767_225_600_000L, 1_000, null, null, 80.0, 345.0, 1, mig,
                null, null, null, null, null);
    }

    @Test
    void shouldMatchTheUuidItself() {
        assertThat(GpuIds.refersTo(UUID, sample(3, UUID, null))).isTrue();
        assertThat(GpuIds.refersTo(OTHER, sample(3, UUID, null))).isFalse();
    }

    @Test
    void shouldMatchATimeSlicedReplicaOfTheGpu() {
        assertThat(GpuIds.refersTo(UUID + "::0", sample(3, UUID, null))).isTrue();
        assertThat(GpuIds.refersTo(UUID + "::7", sample(3, UUID, null))).isTrue();
        assertThat(GpuIds.refersTo(OTHER + "::7", sample(3, UUID, null))).isFalse();
    }

    @Test
    void shouldJudgeAMigDeviceByItsParentGpusSample() {
        assertThat(GpuIds.refersTo(MIG, sample(0, UUID, List.of("MIG-0000", MIG)))).isTrue();
        assertThat(GpuIds.refersTo(MIG, sample(1, OTHER, List.of("MIG-0000")))).isFalse();
        assertThat(GpuIds.refersTo(MIG, sample(0, UUID, null))).isFalse();
        // the form of drivers before R470 names the parent itself, with GPU and compute instance
        assertThat(GpuIds.refersTo("MIG-" + UUID + "/1/0", sample(0, UUID, null))).isTrue();
        assertThat(GpuIds.refersTo("MIG-" + OTHER + "/1/0", sample(0, UUID, null))).isFalse();
    }

    @Test
    void shouldMatchTheDevicePluginsIndexStrategyByTheGpusIndex() {
        assertThat(GpuIds.refersTo("0", sample(0, UUID, null))).isTrue();
        assertThat(GpuIds.refersTo("3", sample(3, UUID, null))).isTrue();
        assertThat(GpuIds.refersTo("3", sample(0, UUID, null))).isFalse();
        assertThat(GpuIds.refersTo("3::1", sample(3, UUID, null))).isTrue();
    }

    @Test
    void shouldMatchNothingWithoutAnId() {
        assertThat(GpuIds.refersTo(null, sample(0, UUID, null))).isFalse();
        assertThat(GpuIds.refersTo("", sample(0, UUID, null))).isFalse();
        assertThat(GpuIds.refersTo("x0", sample(0, UUID, null))).isFalse();
    }
}
