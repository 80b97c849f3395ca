package io.rdmamon.jobs;

import io.rdmamon.model.GpuSample;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.PortSample;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JobEventBatchSerdeTest {
    private static final String TOPIC = "app-job-event-batches-repartition";
    private final JobEventBatchSerde serde = new JobEventBatchSerde();

    private static final JobRecord.Rank RANK_1 = new JobRecord.Rank(1, "llama-worker-0", "gpu-2",
            List.of("mlx5_0", "mlx5_1"));
    private static final Holder HOLDER = new Holder("uid-1", "llama", "team-a", List.of(RANK_1), 4);
    private static final Holder OTHER = new Holder("uid-2", "bert", null, List.of(), 0);

    @Test
    void shouldReadBackEveryFieldOfEveryEventKind() {
        PortSample full = new PortSample(1, "gpu-2", "mlx5_0", 1, 1_700_000_001_000L, 1000, "sysfs", "ACTIVE",
                "LINK_UP", "Ethernet", 25_000_000_000L, 1.5e9, 2.5e9, 1e6, 2e6,
                Map.of("out_of_sequence", 3L, "roce_adp_retrans", 200L), Map.of("retransmit", 203L));
        PortSample sparse = new PortSample(1, "gpu-2", "mlx5_1", 2, 1_700_000_001_000L, 0, null, null, null, null,
                null, null, null, null, null, null, null);
        HostIfaceSample host = new HostIfaceSample(1, "gpu-2", "eth0", 1_700_000_001_000L, 1000, 1e8, null, 5e4,
                null, Map.of("rx_dropped", 7L));
        JobRecord job = new JobRecord(1, "uid-1", "llama", "team-a", JobRecord.RUNNING, 1_700_000_000_000L,
                1_699_999_990_000L, 4, List.of(RANK_1), Map.of("team", "nlp"));
        JobEventBatch batch = new JobEventBatch(List.of(JobEvent.of(new JobSample(PortTraffic.of(full), HOLDER, 1)),
                JobEvent.of(new JobSample(PortTraffic.of(sparse), HOLDER, 2)),
                JobEvent.of(new JobSample(PortTraffic.of(sparse), OTHER, 2)), JobEvent.of(host), JobEvent.of(job),
                JobEvent.of(new GpuSample(1, "gpu-2", 7, "GPU-5e1f", 1_700_000_001_500L, 1000, 100.0, 0.0, 125.5,
                        1980.0, 3)),
                JobEvent.of(new GpuSample(1, "gpu-2", 0, null, 1_700_000_001_500L, 200, null, null, null, null,
                        null)),
                JobEvent.of(new GpuSample(1, "gpu-2", 1, "GPU-0", 1_700_000_001_500L, 200, 0.0, 0.0, 73.0, 345.0,
                        0)),
                JobEvent.of(new GpuSample(1, "gpu-2", 2, "GPU-2", 1_700_000_001_500L, 1000, null, null, 90.0, 1980.0,
                        1, List.of("MIG-a1", "MIG-b2"), "GPU is lost", 0.02, 0.0, 12.7e6, "DS")),
                JobEvent.of(new GpuSample(1, "gpu-2", 3, "GPU-3", 1_700_000_001_500L, 1000, 99.0, 1.0, 120.0, 1980.0,
                        1, null, null, 1.01, null, null, "R"))));

        JobEventBatch back = roundTrip(batch);

        assertThat(back).isEqualTo(batch);
        assertThat(back.events().get(0).port().traffic()).isEqualTo(new PortTraffic("gpu-2", "mlx5_0", 1,
                1_700_000_001_000L, 1000, 25_000_000_000L, 1.5e9, 2.5e9));
        assertThat(back.events().get(1).port().traffic().txBytesPerSec()).isNull();
        assertThat(back.events().get(2).port().holder().namespace()).isNull();
    }

    /**
     * Format 1, as the releases before format 2 wrote it (whole port samples; hex of {@code JobEventBatchSerde} at
     * commit fc3db37): an upgraded app reads what its predecessor left in the repartition topic.
     */
    @Test
    void shouldReadTheWholeSampleFormatOfEarlierReleases() {
        byte[] format1 = java.util.HexFormat.of().parseHex(
                "010301010100056770752d320100066d6c78355f30010000018bcfe56be800000000000003e801000573797366730100"
                + "064143544956450100074c494e4b5f555001000845746865726e65740100000005d21dba000141d65a0bc00000000141"
                + "e2a05f2000000001412e84800000000001413e8480000000000101000f6f75745f6f665f73657175656e636500000000"
                + "000000030101000a72657472616e736d69740000000000000003000100057569642d310100056c6c616d610100067465"
                + "616d2d6104010101000e6c6c616d612d776f726b65722d300202030100066d6c78355f31010101020e020000018bcfe5"
                + "6be8000000000000000000000000000000000000000102020102010004657468300000018bcfe56be800000000000003"
                + "e8014197d78400000000000140e86a00000000000000");

        JobEventBatch back = serde.deserializer().deserialize(TOPIC, format1);

        assertThat(back.events()).containsExactly(
                JobEvent.of(new JobSample(new PortTraffic("gpu-2", "mlx5_0", 1, 1_700_000_001_000L, 1000,
                        25_000_000_000L, 1.5e9, 2.5e9), HOLDER, 1)),
                JobEvent.of(new JobSample(new PortTraffic("gpu-2", "mlx5_1", 2, 1_700_000_001_000L, 0, null, null,
                        null), HOLDER, 2)),
                JobEvent.of(new HostIfaceSample(1, "gpu-2", "eth0", 1_700_000_001_000L, 1000, 1e8, null, 5e4, null,
                        Map.of())));
    }

    @Test
    void shouldWriteRepeatedNamesAndHoldersOnce() {
        List<JobEvent> eight = new java.util.ArrayList<>();
        for (int i = 0; i < 8; i++) {
            PortSample s = new PortSample(1, "gpu-node-with-a-long-name-0042", "mlx5_" + i, 1, 1_700_000_001_000L,
                    1000, "sysfs", "ACTIVE", "LINK_UP", "Ethernet", 25_000_000_000L, 1.5e9, 2.5e9, 1e6, 2e6, null,
                    null);
            eight.add(JobEvent.of(new JobSample(PortTraffic.of(s), new Holder("uid-1", "llama", "team-a",
                    List.of(RANK_1), 4), 1)));
        }
        byte[] one = serde.serializer().serialize(TOPIC, new JobEventBatch(eight.subList(0, 1)));
        byte[] all = serde.serializer().serialize(TOPIC, new JobEventBatch(eight));

        // each further port costs its numbers and its device name, not the node or holder again
        assertThat((all.length - one.length) / 7).isLessThan(60);
        assertThat(roundTrip(new JobEventBatch(eight)).events()).isEqualTo(eight);
    }

    @Test
    void shouldNameAnUnknownFormat() {
        byte[] bytes = serde.serializer().serialize(TOPIC, new JobEventBatch(List.of()));
        bytes[0] = 9;
        assertThatThrownBy(() -> serde.deserializer().deserialize(TOPIC, bytes))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("unknown job event batch format 9").hasMessageContaining(TOPIC);
    }

    @Test
    void shouldFailOnATruncatedRecordAndPassNullThrough() {
        JobEventBatch batch = new JobEventBatch(List.of(JobEvent.of(new HostIfaceSample(1, "gpu-2", "eth0",
                1_700_000_001_000L, 1000, 1e8, 1e8, null, null, null))));
        byte[] bytes = serde.serializer().serialize(TOPIC, batch);
        byte[] cut = java.util.Arrays.copyOf(bytes, bytes.length - 3);
        assertThatThrownBy(() -> serde.deserializer().deserialize(TOPIC, cut))
                .isInstanceOf(SerializationException.class);
        assertThat(serde.serializer().serialize(TOPIC, null)).isNull();
        assertThat(serde.deserializer().deserialize(TOPIC, null)).isNull();
    }

    private JobEventBatch roundTrip(JobEventBatch batch) {
        return serde.deserializer().deserialize(TOPIC, serde.serializer().serialize(TOPIC, batch));
    }
}
