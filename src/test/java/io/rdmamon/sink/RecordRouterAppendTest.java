package io.rdmamon.sink;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.model.Json;
import io.rdmamon.model.PortSample;
import io.rdmamon.model.Topics;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.rdmamon.testing.ContractRecords.KAFKA_TS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sink fills request bodies across polls: a batch is one full body, and its offsets never pass a record with a
 * point outside it or before it, nor a dead letter not in it or before it; what is left is held until flushed.
 */
class RecordRouterAppendTest {
    private static final TopicPartition PARTITION = new TopicPartition(Topics.PORT_SAMPLES, 0);

    private final RecordRouter router = new RecordRouter(new SinkConfig(Map.of(
            SinkConfig.BATCH_MAX_POINTS_CONFIG, "5")), new SinkMetrics(new SimpleMeterRegistry()));

    @Test
    void shouldCutBatchesAtFullBodiesWhenPollsAreNotMultiplesOfTheBodySize() {
        List<RecordRouter.Batch> first = router.append(poll(0, 7, Map.of()));
        assertThat(first).hasSize(1);
        assertBatch(first.get(0), List.of(5), 5);
        assertThat(router.holding()).isTrue();

        // records 5, 6 held: 7-9 close the body, 10-13 are held
        List<RecordRouter.Batch> second = router.append(poll(7, 7, Map.of()));
        assertThat(second).hasSize(1);
        assertBatch(second.get(0), List.of(5), 10);

        List<RecordRouter.Batch> third = router.append(poll(14, 8, Map.of()));
        assertThat(third).hasSize(2);
        assertBatch(third.get(0), List.of(5), 15);
        assertBatch(third.get(1), List.of(5), 20);

        assertBatch(router.flushHeld(), List.of(2), 22);
        assertThat(router.holding()).isFalse();
    }

    @Test
    void shouldCommitARecordWhosePointsStraddleTwoBodiesOnlyWithTheSecond() {
        // record 4 has two points (a port point and an error point): the first fills the body, the second is held
        List<RecordRouter.Batch> batches = router.append(poll(0, 5, Map.of(4L, Map.of("symbol_error", 2L))));

        assertThat(batches).hasSize(1);
        assertBatch(batches.get(0), List.of(5), 4);
        assertBatch(router.flushHeld(), List.of(1), 5);
    }

    @Test
    void shouldSendADeadLetterWithTheBatchWhoseOffsetsPassIt() {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>(poll(0, 7, Map.of()).records(PARTITION));
        records.set(2, record(2, "not json".getBytes(StandardCharsets.UTF_8)));

        List<RecordRouter.Batch> batches = router.append(new ConsumerRecords<>(Map.of(PARTITION, records), Map.of()));

        assertThat(batches).hasSize(1);
        assertBatch(batches.get(0), List.of(5), 6);
        assertThat(batches.get(0).deadLetters()).hasSize(1);
        RecordRouter.Batch rest = router.flushHeld();
        assertBatch(rest, List.of(1), 7);
        assertThat(rest.deadLetters()).isEmpty();
    }

    @Test
    void shouldRouteAPollAsOneBatchOfAllItsBodies() {
        RecordRouter.Batch batch = router.route(poll(0, 12, Map.of()));

        assertBatch(batch, List.of(5, 5, 2), 12);
        assertThat(router.holding()).isFalse();
    }

    private static void assertBatch(RecordRouter.Batch batch, List<Integer> points, long committed) {
        assertThat(batch.bodies()).extracting(WriteBody::points).containsExactlyElementsOf(points);
        assertThat(batch.offsets()).containsExactly(Map.entry(PARTITION, new OffsetAndMetadata(committed)));
    }

    /** {@code count} port samples from {@code first} on, one point each, plus the given error increments. */
    private static ConsumerRecords<byte[], byte[]> poll(long first, int count, Map<Long, Map<String, Long>> errors) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (long offset = first; offset < first + count; offset++) {
            records.add(record(offset, Json.toBytes(new PortSample(1, "gpu-" + offset, "mlx5_0", 1,
                    KAFKA_TS - 1_000, 1000, "sysfs", "ACTIVE", "LinkUp", "InfiniBand", 25_000_000_000L, 1.0, 2.0,
                    3.0, 4.0, errors.getOrDefault(offset, Map.of()), Map.of()))));
        }
        return new ConsumerRecords<>(Map.of(PARTITION, records), Map.of());
    }

    private static ConsumerRecord<byte[], byte[]> record(long offset, byte[] value) {
        return new ConsumerRecord<>(PARTITION.topic(), PARTITION.partition(), offset, KAFKA_TS,
                TimestampType.CREATE_TIME, -1, value.length, null, value, new RecordHeaders(), Optional.empty());
    }
}
