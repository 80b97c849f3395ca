package io.rdmamon.model;

import io.rdmamon.testing.ContractRecords;
import io.rdmamon.testing.ContractRecords.Change;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static io.rdmamon.testing.ContractRecords.KAFKA_TS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every input decoder ({@link RecordParser}'s four) against generated records: arbitrary bytes, arbitrary JSON objects
 * with the type's field names, and near-valid records. None throws; each record is either accepted and keeps the
 * contract (checked by {@link ContractRecords}' independent restatement) or refused with a code and a reason; a
 * near-valid record is accepted exactly when none of its changes breaks the contract, and the reason names a broken
 * field.
 */
class RecordParserPropertiesTest {

    @Property(tries = 300)
    void arbitraryBytesAreRefusedWithAReason(@ForAll("bytes") byte[] bytes, @ForAll("parsers") RecordParser<?> parser) {
        RecordParser.Parsed<?> parsed = parser.parse(bytes, KAFKA_TS);
        assertThat(parsed.ok()).isFalse();
        assertRefused(parsed);
    }

    @Property(tries = 300)
    void arbitraryPortSamplesKeepTheContractWhenAccepted(@ForAll("anyPortSample") Map<String, Object> record) {
        accepted(RecordParser.PORT_SAMPLE, record).ifPresent(ContractRecords::keepsContract);
    }

    @Property(tries = 300)
    void arbitraryHostSamplesKeepTheContractWhenAccepted(@ForAll("anyHostSample") Map<String, Object> record) {
        accepted(RecordParser.HOST_SAMPLE, record).ifPresent(ContractRecords::keepsContract);
    }

    @Property(tries = 300)
    void arbitraryJobsKeepTheContractWhenAccepted(@ForAll("anyJob") Map<String, Object> record) {
        accepted(RecordParser.JOB, record).ifPresent(ContractRecords::keepsContract);
    }

    @Property(tries = 300)
    void arbitraryPodDeviceMapsKeepTheContractWhenAccepted(@ForAll("anyPodDevices") Map<String, Object> record) {
        accepted(RecordParser.POD_DEVICES, record).ifPresent(ContractRecords::keepsContract);
    }

    @Property(tries = 400)
    void nearValidPortSamples(@ForAll("portSampleChanges") List<Change> changes) {
        nearValid(RecordParser.PORT_SAMPLE, ContractRecords.portSample(), changes, ContractRecords::keepsContract);
    }

    @Property(tries = 300)
    void nearValidHostSamples(@ForAll("hostSampleChanges") List<Change> changes) {
        nearValid(RecordParser.HOST_SAMPLE, ContractRecords.hostSample(), changes, ContractRecords::keepsContract);
    }

    @Property(tries = 300)
    void nearValidJobs(@ForAll("jobChanges") List<Change> changes) {
        nearValid(RecordParser.JOB, ContractRecords.job(), changes, ContractRecords::keepsContract);
    }

    @Property(tries = 300)
    void nearValidPodDeviceMaps(@ForAll("podDeviceChanges") List<Change> changes) {
        nearValid(RecordParser.POD_DEVICES, ContractRecords.podDevices(), changes, ContractRecords::keepsContract);
    }

    @Property(tries = 300)
    void theFastPathAgreesWithTheTreeOnPortSamples(@ForAll("anyPortSample") Map<String, Object> record,
                                                   @ForAll("portSampleChanges") List<Change> changes) {
        sameAsTree(RecordParser.PORT_SAMPLE, ContractRecords.bytes(record));
        sameAsTree(RecordParser.PORT_SAMPLE,
                ContractRecords.bytes(ContractRecords.apply(ContractRecords.portSample(), changes)));
    }

    @Property(tries = 300)
    void theFastPathAgreesWithTheTreeOnHostSamples(@ForAll("anyHostSample") Map<String, Object> record,
                                                   @ForAll("hostSampleChanges") List<Change> changes) {
        sameAsTree(RecordParser.HOST_SAMPLE, ContractRecords.bytes(record));
        sameAsTree(RecordParser.HOST_SAMPLE,
                ContractRecords.bytes(ContractRecords.apply(ContractRecords.hostSample(), changes)));
    }

    @Property(tries = 100)
    void theFastPathAgreesWithTheTreeOnArbitraryBytes(@ForAll("bytes") byte[] bytes) {
        sameAsTree(RecordParser.PORT_SAMPLE, bytes);
        sameAsTree(RecordParser.HOST_SAMPLE, bytes);
    }

    @Example
    void theFastPathTakesWellFormedSamples() throws Exception {
        // without this the agreement above would also hold for a fast path that never answers
        assertThat(SampleJsonReader.portSample(ContractRecords.bytes(ContractRecords.portSample()),
                PortSample.VERSION)).isNotNull();
        assertThat(SampleJsonReader.hostSample(ContractRecords.bytes(ContractRecords.hostSample()),
                HostIfaceSample.VERSION)).isNotNull();
    }

    private static <T> void sameAsTree(RecordParser<T> parser, byte[] bytes) {
        RecordParser.Parsed<T> fast = parser.parse(bytes, KAFKA_TS);
        Statistics.collect(fast.ok() ? "accepted" : fast.code());
        assertThat(fast).as(new String(bytes)).isEqualTo(parser.withoutFastPath().parse(bytes, KAFKA_TS));
    }

    private static <T> java.util.Optional<T> accepted(RecordParser<T> parser, Map<String, Object> record) {
        RecordParser.Parsed<T> parsed = parser.parse(ContractRecords.bytes(record), KAFKA_TS);
        // in jqwik's report: how many were accepted (the contract assertions ran), how many refused by which code
        Statistics.collect(parsed.ok() ? "accepted" : parsed.code());
        if (!parsed.ok()) {
            assertRefused(parsed);
        }
        return java.util.Optional.ofNullable(parsed.value());
    }

    private static <T> void nearValid(RecordParser<T> parser, Map<String, Object> base, List<Change> changes,
                                      Consumer<T> contract) {
        byte[] bytes = ContractRecords.bytes(ContractRecords.apply(base, changes));
        RecordParser.Parsed<T> parsed = parser.parse(bytes, KAFKA_TS);
        List<String> broken = ContractRecords.broken(changes);
        Statistics.collect(parsed.ok() ? "accepted" : parsed.code());
        if (broken.isEmpty()) {
            assertThat(parsed.error()).as(new String(bytes)).isNull();
            contract.accept(parsed.value());
        } else {
            assertThat(parsed.ok()).as("accepted although %s break the contract: %s", broken, new String(bytes))
                    .isFalse();
            assertRefused(parsed);
            assertThat(parsed.error()).containsAnyOf(broken.toArray(String[]::new));
        }
    }

    private static void assertRefused(RecordParser.Parsed<?> parsed) {
        assertThat(parsed.value()).isNull();
        assertThat(parsed.error()).isNotBlank();
        assertThat(parsed.code()).isIn(ContractRecords.CODES);
    }

    @Provide
    Arbitrary<byte[]> bytes() {
        byte[] valid = ContractRecords.bytes(ContractRecords.portSample());
        return Arbitraries.oneOf(
                Arbitraries.bytes().array(byte[].class).ofMaxSize(64),
                // a valid record cut short, as a broken producer or a truncated write would leave it
                Arbitraries.integers().between(0, valid.length - 1).map(n -> Arrays.copyOf(valid, n)),
                Arbitraries.of("null", "[]", "{}", "1", "\"x\"", "{\"v\":1}", "{\"v\":1,}").map(String::getBytes));
    }

    @Provide
    Arbitrary<RecordParser<?>> parsers() {
        return Arbitraries.of(RecordParser.PORT_SAMPLE, RecordParser.HOST_SAMPLE, RecordParser.JOB,
                RecordParser.POD_DEVICES);
    }

    @Provide
    Arbitrary<Map<String, Object>> anyPortSample() {
        return ContractRecords.anyLike(ContractRecords.portSample());
    }

    @Provide
    Arbitrary<Map<String, Object>> anyHostSample() {
        return ContractRecords.anyLike(ContractRecords.hostSample());
    }

    @Provide
    Arbitrary<Map<String, Object>> anyJob() {
        return ContractRecords.anyLike(ContractRecords.job());
    }

    @Provide
    Arbitrary<Map<String, Object>> anyPodDevices() {
        return ContractRecords.anyLike(ContractRecords.podDevices());
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
    Arbitrary<List<Change>> jobChanges() {
        return ContractRecords.jobChanges();
    }

    @Provide
    Arbitrary<List<Change>> podDeviceChanges() {
        return ContractRecords.podDeviceChanges();
    }
}
