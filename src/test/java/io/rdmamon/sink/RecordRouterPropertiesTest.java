package io.rdmamon.sink;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.model.RecordParser;
import io.rdmamon.model.Topics;
import io.rdmamon.testing.ContractRecords;
import io.rdmamon.testing.ContractRecords.Change;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.rdmamon.testing.ContractRecords.KAFKA_TS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sink's reader against generated records on the topics any producer may write, and on the alerts topic: nothing
 * escapes {@link RecordRouter#route}; a record becomes points or a dead letter with a reason, never both; it accepts
 * a port or host sample exactly when the stream app's parser does, and a near-valid record exactly when none of its
 * changes breaks the contract.
 */
class RecordRouterPropertiesTest {
    private final RecordRouter router = new RecordRouter(new SinkConfig(Map.of()),
            new SinkMetrics(new SimpleMeterRegistry()));

    @Property(tries = 200)
    void nearValidPortSamples(@ForAll("portSampleChanges") List<Change> changes) {
        nearValid(Topics.PORT_SAMPLES, ContractRecords.portSample(), changes);
    }

    @Property(tries = 200)
    void nearValidHostSamples(@ForAll("hostSampleChanges") List<Change> changes) {
        nearValid(Topics.HOST_SAMPLES, ContractRecords.hostSample(), changes);
    }

    @Property(tries = 200)
    void nearValidAlerts(@ForAll("alertChanges") List<Change> changes) {
        nearValid(Topics.ALERTS, ContractRecords.alert(), changes);
    }

    @Property(tries = 200)
    void arbitraryPortSamplesAsTheStreamAppReadsThem(@ForAll("anyPortSample") Map<String, Object> record) {
        byte[] bytes = ContractRecords.bytes(record);
        boolean accepted = route(Topics.PORT_SAMPLES, bytes).isEmpty();
        assertThat(accepted).isEqualTo(RecordParser.PORT_SAMPLE.parse(bytes, KAFKA_TS).ok());
    }

    @Property(tries = 200)
    void arbitraryHostSamplesAsTheStreamAppReadsThem(@ForAll("anyHostSample") Map<String, Object> record) {
        byte[] bytes = ContractRecords.bytes(record);
        boolean accepted = route(Topics.HOST_SAMPLES, bytes).isEmpty();
        assertThat(accepted).isEqualTo(RecordParser.HOST_SAMPLE.parse(bytes, KAFKA_TS).ok());
    }

    private void nearValid(String topic, Map<String, Object> base, List<Change> changes) {
        Optional<String> reason = route(topic, ContractRecords.bytes(ContractRecords.apply(base, changes)));
        List<String> broken = ContractRecords.broken(changes);
        if (broken.isEmpty()) {
            assertThat(reason).isEmpty();
        } else {
            assertThat(reason).as("accepted although %s break the contract", broken).isPresent();
            assertThat(reason.get()).containsAnyOf(broken.toArray(String[]::new));
        }
    }

    /** Routes one record: empty when it became points, else the dead letter's reason. */
    private Optional<String> route(String topic, byte[] value) {
        ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>(topic, 0, 7, KAFKA_TS, TimestampType.CREATE_TIME,
                -1, value.length, "key".getBytes(), value, new RecordHeaders(), Optional.empty());
        TopicPartition partition = new TopicPartition(topic, 0);
        RecordRouter.Batch batch = router.route(new ConsumerRecords<>(Map.of(partition, List.of(record)), Map.of()));
        assertThat(batch.offsets()).containsKey(partition);
        if (batch.deadLetters().isEmpty()) {
            assertThat(batch.bodies()).isNotEmpty();
            return Optional.empty();
        }
        assertThat(batch.bodies()).isEmpty();
        assertThat(batch.deadLetters()).singleElement().satisfies(l -> assertThat(l.reason()).isNotBlank());
        return Optional.of(batch.deadLetters().get(0).reason());
    }

    @Provide
    Arbitrary<List<Change>> portSampleChanges() {
        return ContractRecords.portSampleChanges();
    }

    @Provide
    Arbitrary<List<Change>> hostSampleChanges() {
        return ContractRecords.hostSampleChanges();
    }

    @Provide
    Arbitrary<List<Change>> alertChanges() {
        return ContractRecords.alertChanges();
    }

    @Provide
    Arbitrary<Map<String, Object>> anyPortSample() {
        return ContractRecords.anyLike(ContractRecords.portSample());
    }

    @Provide
    Arbitrary<Map<String, Object>> anyHostSample() {
        return ContractRecords.anyLike(ContractRecords.hostSample());
    }
}
