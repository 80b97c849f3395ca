package io.rdmamon.jobs;

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
        JobEventBatch batch = new JobEventBatch(List.of(JobEvent.of(new JobSample(full, HOLDER, 1)),
                JobEvent.of(new JobSample(sparse, HOLDER, 2)), JobEvent.of(new JobSample(sparse, OTHER, 2)),
                JobEvent.of(host), JobEvent.of(job)));

        JobEventBatch back = roundTrip(batch);

        assertThat(back).isEqualTo(batch);
        assertThat(back.events().get(1).port().sample().errors()).isEmpty();
        assertThat(back.events().get(2).port().holder().namespace()).isNull();
    }

    @Test
    void shouldWriteRepeatedNamesAndHoldersOnce() {
        List<JobEvent> eight = new java.util.ArrayList<>();
        for (int i = 0; i < 8; i++) {
            PortSample s = new PortSample(1, "gpu-node-with-a-long-name-0042", "mlx5_" + i, 1, 1_700_000_001_000L,
                    1000, "sysfs", "ACTIVE", "LINK_UP", "Ethernet", 25_000_000_000L, 1.5e9, 2.5e9, 1e6, 2e6, null,
                    null);
            eight.add(JobEvent.of(new JobSample(s, new Holder("uid-1", "llama", "team-a", List.of(RANK_1), 4), 1)));
        }
        byte[] one = serde.serializer().serialize(TOPIC, new JobEventBatch(eight.subList(0, 1)));
        byte[] all = serde.serializer().serialize(TOPIC, new JobEventBatch(eight));

        // each further port costs its numbers and its device name, not the node, states or holder again
        assertThat((all.length - one.length) / 7).isLessThan(90);
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
