package io.rdmamon.model;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.rdmamon.testing.ContractRecords.KAFKA_TS;
import static io.rdmamon.testing.ContractRecords.NOMINAL;
import static io.rdmamon.testing.ContractRecords.hostSample;
import static io.rdmamon.testing.ContractRecords.job;
import static io.rdmamon.testing.ContractRecords.podDevices;
import static io.rdmamon.testing.ContractRecords.portSample;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contracts' value ranges, one rule at a time, through the parsers every reader uses; valid records from
 * {@link io.rdmamon.testing.ContractRecords}.
 */
class ContractChecksTest {
    static Map<String, Object> with(Map<String, Object> record, String field, Object value) {
        Map<String, Object> out = new LinkedHashMap<>(record);
        out.put(field, value);
        return out;
    }

    static <T> RecordParser.Parsed<T> parse(RecordParser<T> parser, Map<String, Object> record) {
        return parser.parse(Json.toBytes(record), KAFKA_TS);
    }

    static void assertRejected(RecordParser.Parsed<?> parsed, String code, String... inMessage) {
        assertThat(parsed.ok()).as("accepted, expected %s", code).isFalse();
        assertThat(parsed.code()).as(parsed.error()).isEqualTo(code);
        assertThat(parsed.error()).contains(inMessage);
    }

    @Test
    void shouldAcceptTheValidRecordsTheChecksStartFrom() {
        assertThat(parse(RecordParser.PORT_SAMPLE, portSample()).error()).isNull();
        assertThat(parse(RecordParser.JOB, job()).error()).isNull();
        assertThat(parse(RecordParser.POD_DEVICES, podDevices()).error()).isNull();
        assertThat(parse(RecordParser.HOST_SAMPLE, hostSample()).error()).isNull();
    }

    @Test
    void shouldRejectTheThreeValuesOfTheIssueNamingFieldAndValue() {
        assertRejected(parse(RecordParser.PORT_SAMPLE, with(portSample(), "ts", -5)), Rejection.IMPLAUSIBLE_TIME,
                "'ts'", "-5");
        assertRejected(parse(RecordParser.PORT_SAMPLE, with(portSample(), "txBytesPerSec", -1e9)),
                Rejection.NEGATIVE, "'txBytesPerSec'", "-1.0E9");
        assertRejected(parse(RecordParser.PORT_SAMPLE, with(portSample(), "rxBytesPerSec", 1e308)),
                Rejection.RATE_TOO_HIGH, "'rxBytesPerSec'", "1.0E308");
        // without a nominal rate the ceiling still refuses it
        Map<String, Object> unknownRate = with(portSample(), "rateBytesPerSec", null);
        assertRejected(parse(RecordParser.PORT_SAMPLE, with(unknownRate, "rxBytesPerSec", 1e308)),
                Rejection.RATE_TOO_HIGH, "'rxBytesPerSec'", "contract.rate.max.bytes.per.sec");
    }

    @Test
    void shouldBoundTimesByTheKafkaTimestampAheadOnlySoReplaysOfOldDataPass() {
        long limit = ContractLimits.DEFAULT_MAX_FUTURE;
        assertThat(parse(RecordParser.PORT_SAMPLE, with(portSample(), "ts", KAFKA_TS + limit)).ok()).isTrue();
        assertRejected(parse(RecordParser.PORT_SAMPLE, with(portSample(), "ts", KAFKA_TS + limit + 1)),
                Rejection.IMPLAUSIBLE_TIME, "'ts'", "contract.max.future.ms");
        // a year-old sample re-produced today, and one with no Kafka timestamp at all
        long yearAgo = KAFKA_TS - 365L * 86_400_000;
        assertThat(parse(RecordParser.PORT_SAMPLE, with(portSample(), "ts", yearAgo)).ok()).isTrue();
        assertThat(RecordParser.PORT_SAMPLE.parse(Json.toBytes(with(portSample(), "ts", KAFKA_TS + 10 * limit)))
                .ok()).isTrue();
        // seconds and microseconds are not milliseconds, whatever the Kafka timestamp
        assertRejected(RecordParser.PORT_SAMPLE.parse(Json.toBytes(with(portSample(), "ts", KAFKA_TS / 1000))),
                Rejection.IMPLAUSIBLE_TIME, "1767225600");
        assertRejected(RecordParser.PORT_SAMPLE.parse(Json.toBytes(with(portSample(), "ts", KAFKA_TS * 1000))),
                Rejection.IMPLAUSIBLE_TIME, "1767225600000000");
    }

    @Test
    void shouldBoundRatesByAMultipleOfTheNominalRateWhenKnown() {
        double most = ContractLimits.DEFAULT_RATE_MULTIPLE * NOMINAL;
        assertThat(parse(RecordParser.PORT_SAMPLE, with(portSample(), "txBytesPerSec", most)).ok()).isTrue();
        assertRejected(parse(RecordParser.PORT_SAMPLE, with(portSample(), "txBytesPerSec", most + 1_000)),
                Rejection.RATE_TOO_HIGH, "'txBytesPerSec'", "contract.rate.max.multiple");
        assertRejected(parse(RecordParser.PORT_SAMPLE, with(portSample(), "rxPacketsPerSec", most + 1_000)),
                Rejection.RATE_TOO_HIGH, "'rxPacketsPerSec'");
        // nominal unknown (null) or 0 (a down port): only the ceiling applies
        assertThat(parse(RecordParser.PORT_SAMPLE, with(with(portSample(), "rateBytesPerSec", null),
                "txBytesPerSec", 10.0 * NOMINAL)).ok()).isTrue();
        assertThat(parse(RecordParser.PORT_SAMPLE, with(with(portSample(), "rateBytesPerSec", 0),
                "txBytesPerSec", 10.0 * NOMINAL)).ok()).isTrue();
        assertRejected(parse(RecordParser.PORT_SAMPLE, with(portSample(), "rateBytesPerSec", -1)),
                Rejection.NEGATIVE, "'rateBytesPerSec'");
    }

    @Test
    void shouldUseTheConfiguredLimits() {
        RecordParser<PortSample> strict = RecordParser.PORT_SAMPLE.withLimits(new ContractLimits(1_000, 1.1, 1e11));
        assertRejected(strict.parse(Json.toBytes(with(portSample(), "ts", KAFKA_TS + 1_001)), KAFKA_TS),
                Rejection.IMPLAUSIBLE_TIME, "more than 1000");
        assertRejected(strict.parse(Json.toBytes(with(portSample(), "txBytesPerSec", 1.2 * NOMINAL)), KAFKA_TS),
                Rejection.RATE_TOO_HIGH, "1.1 x");
        assertRejected(strict.parse(Json.toBytes(with(with(portSample(), "rateBytesPerSec", null), "txBytesPerSec",
                2e11)), KAFKA_TS), Rejection.RATE_TOO_HIGH, "above 1.0E11");
        assertThat(RecordParser.PORT_SAMPLE.limits()).isEqualTo(ContractLimits.DEFAULT);
    }

    @Test
    void shouldRejectNonFiniteRatesWhateverTheirSpelling() {
        // Jackson reads "NaN" and "Infinity" strings as doubles, and 1e400 overflows to Infinity
        assertRejected(parse(RecordParser.PORT_SAMPLE, with(portSample(), "txBytesPerSec", "NaN")),
                Rejection.NOT_FINITE, "'txBytesPerSec'", "NaN");
        assertRejected(parse(RecordParser.HOST_SAMPLE, with(with(portSample(), "iface", "eth0"), "rxBytesPerSec",
                "-Infinity")), Rejection.NOT_FINITE, "'rxBytesPerSec'");
        String overflow = new String(Json.toBytes(portSample())).replace("9.5E8", "1e400");
        assertRejected(RecordParser.PORT_SAMPLE.parse(overflow.getBytes(), KAFKA_TS), Rejection.NOT_FINITE,
                "Infinity");
    }

    @Test
    void shouldRejectNegativeCountsAndIntervals() {
        assertRejected(parse(RecordParser.PORT_SAMPLE, with(portSample(), "errors", Map.of("link_downed", -1))),
                Rejection.NEGATIVE, "'errors.link_downed'", "-1");
        assertRejected(parse(RecordParser.PORT_SAMPLE, with(portSample(), "errorClasses", Map.of("drop", -4))),
                Rejection.NEGATIVE, "'errorClasses.drop'");
        Map<String, Object> nullCount = new LinkedHashMap<>();
        nullCount.put("symbol_error", null);
        assertRejected(parse(RecordParser.PORT_SAMPLE, with(portSample(), "errors", nullCount)),
                Rejection.WRONG_TYPE, "'errors.symbol_error'");
        assertRejected(parse(RecordParser.PORT_SAMPLE, with(portSample(), "intervalMs", -1000)),
                Rejection.NEGATIVE, "'intervalMs'");
    }

    @Test
    void shouldRejectMalformedNamesAndPorts() {
        assertRejected(parse(RecordParser.PORT_SAMPLE, with(portSample(), "device", "mlx5_0/1")),
                Rejection.MALFORMED_NAME, "'device'", "'mlx5_0/1'");
        assertRejected(parse(RecordParser.PORT_SAMPLE, with(portSample(), "node", "gpu node")),
                Rejection.MALFORMED_NAME, "'node'");
        assertRejected(parse(RecordParser.PORT_SAMPLE, with(portSample(), "node", "x".repeat(254))),
                Rejection.MALFORMED_NAME, "'node'", "...");
        assertRejected(parse(RecordParser.PORT_SAMPLE, with(portSample(), "port", 0)), Rejection.OUT_OF_RANGE,
                "'port'", "0");
        assertRejected(parse(RecordParser.PORT_SAMPLE, with(portSample(), "port", 4_294_967_297L)),
                Rejection.WRONG_TYPE, "'port'");
        assertThat(parse(RecordParser.PORT_SAMPLE, with(portSample(), "node", "x".repeat(253))).ok()).isTrue();
    }

    @Test
    void shouldCheckJobTimesRanksAndDevices() {
        assertRejected(parse(RecordParser.JOB, with(job(), "updatedAt", 1)), Rejection.IMPLAUSIBLE_TIME,
                "'updatedAt'");
        assertRejected(parse(RecordParser.JOB, with(job(), "startedAt", -1)), Rejection.IMPLAUSIBLE_TIME,
                "'startedAt'");
        assertRejected(parse(RecordParser.JOB, with(job(), "worldSize", 0)), Rejection.OUT_OF_RANGE,
                "'worldSize'");
        assertRejected(parse(RecordParser.JOB, with(job(), "ranks", List.of(Map.of("rank", 2, "node", "n1")))),
                Rejection.OUT_OF_RANGE, "'ranks[0].rank' is 2", "worldSize - 1 = 1");
        assertRejected(parse(RecordParser.JOB, with(job(), "ranks", List.of(Map.of("rank", -1, "node", "n1")))),
                Rejection.OUT_OF_RANGE, "'ranks[0].rank' is -1");
        assertRejected(parse(RecordParser.JOB, with(job(), "ranks", List.of(Map.of("rank", 0, "node", "n/1")))),
                Rejection.MALFORMED_NAME, "'ranks[0].node'");
        assertRejected(parse(RecordParser.JOB, with(job(), "ranks", List.of(Map.of("rank", 0, "node", "n1",
                "devices", List.of("mlx5_0", " "))))), Rejection.MALFORMED_NAME, "'ranks[0].devices[1]'");
        // instanceType is optional (issue 11): a name when given, and records without it parse as before
        assertRejected(parse(RecordParser.JOB, with(job(), "ranks", List.of(Map.of("rank", 0, "node", "n1",
                "instanceType", "ecs ebmgn7ex")))), Rejection.MALFORMED_NAME, "'ranks[0].instanceType'");
        var typed = parse(RecordParser.JOB, with(job(), "ranks", List.of(Map.of("rank", 0, "node", "n1",
                "instanceType", "ecs.ebmgn7ex"))));
        assertThat(typed.ok()).isTrue();
        assertThat(typed.value().ranks().get(0).instanceType()).isEqualTo("ecs.ebmgn7ex");
        // virtualNode likewise (issue 38)
        assertRejected(parse(RecordParser.JOB, with(job(), "ranks", List.of(Map.of("rank", 0, "node", "ml.p-0",
                "virtualNode", "virtual kubelet")))), Rejection.MALFORMED_NAME, "'ranks[0].virtualNode'");
        assertThat(parse(RecordParser.JOB, with(job(), "ranks", List.of(Map.of("rank", 0, "node", "ml.p-0",
                "virtualNode", "virtual-kubelet-cn-wulanchabu-c")))).value().ranks().get(0).virtualNode())
                .isEqualTo("virtual-kubelet-cn-wulanchabu-c");
        var untyped = parse(RecordParser.JOB, with(job(), "ranks", List.of(Map.of("rank", 0, "node", "n1"))));
        assertThat(untyped.value().ranks().get(0).instanceType()).isNull();
        assertThat(Json.toString(untyped.value().ranks().get(0))).isEqualTo(
                "{\"rank\":0,\"pod\":null,\"node\":\"n1\",\"devices\":[]}");
        // without a world size any rank from 0 goes
        assertThat(parse(RecordParser.JOB, with(with(job(), "worldSize", null), "ranks",
                List.of(Map.of("rank", 7, "node", "n1")))).ok()).isTrue();
    }

    @Test
    void shouldCheckPodDeviceMaps() {
        assertRejected(parse(RecordParser.POD_DEVICES, with(podDevices(), "ts", 0)), Rejection.IMPLAUSIBLE_TIME,
                "'ts'");
        assertRejected(parse(RecordParser.POD_DEVICES, with(podDevices(), "pods", List.of(Map.of("namespace", "ml",
                "pod", "p", "devices", List.of("mlx5 0"))))), Rejection.MALFORMED_NAME, "'pods[0].devices[0]'");
        assertRejected(parse(RecordParser.POD_DEVICES, with(podDevices(), "pods", List.of(Map.of("pod", "p")))),
                Rejection.MALFORMED_NAME, "'pods[0].namespace'", "null");
        assertRejected(parse(RecordParser.POD_DEVICES, with(podDevices(), "node", "")), Rejection.WRONG_TYPE,
                "'node'");
        assertRejected(parse(RecordParser.POD_DEVICES, with(podDevices(), "pods", "mlx5_0")), Rejection.WRONG_TYPE,
                "'pods'");
    }

    static Map<String, Object> gpuSample() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("v", 1);
        s.put("node", "gpu-node-1");
        s.put("gpu", 0);
        s.put("uuid", "GPU-fa2badef-49a9-1483-88ed-34afc018aeb1");
        s.put("ts", KAFKA_TS);
        s.put("intervalMs", 1000);
        s.put("utilizationPercent", 98.0);
        s.put("memoryUtilizationPercent", 2.0);
        s.put("powerWatts", 153.27);
        s.put("smClockMHz", 1980.0);
        s.put("processes", 1);
        return s;
    }

    /** rdma.gpu-samples as its contract is written: intervalMs measured (0 first), uuid required. */
    @Test
    void shouldCheckGpuSamplesAsTheContractIsWritten() {
        assertThat(parse(RecordParser.GPU_SAMPLE, gpuSample()).error()).isNull();
        // a GPU's first sample has no interval behind it
        assertThat(parse(RecordParser.GPU_SAMPLE, with(gpuSample(), "intervalMs", 0)).error()).isNull();
        assertRejected(parse(RecordParser.GPU_SAMPLE, with(gpuSample(), "intervalMs", -1)), Rejection.NEGATIVE,
                "'intervalMs'");
        // without a uuid a sample would belong to every job on its node
        Map<String, Object> noUuid = new LinkedHashMap<>(gpuSample());
        noUuid.remove("uuid");
        assertRejected(parse(RecordParser.GPU_SAMPLE, noUuid), Rejection.MISSING_FIELD, "'uuid'");
        assertRejected(parse(RecordParser.GPU_SAMPLE, with(gpuSample(), "uuid", "")), Rejection.WRONG_TYPE,
                "'uuid'");
        assertRejected(parse(RecordParser.GPU_SAMPLE, with(gpuSample(), "processes", -1)), Rejection.NEGATIVE,
                "'processes'");
        assertThat(parse(RecordParser.GPU_SAMPLE, with(gpuSample(), "processes", null)).error()).isNull();
        assertThat(parse(RecordParser.GPU_SAMPLE, with(with(with(gpuSample(), "utilizationPercent", null),
                "migDevices", List.of("MIG-8c4e")), "error", "GPU is lost")).error()).isNull();
        assertRejected(parse(RecordParser.GPU_SAMPLE, with(gpuSample(), "migDevices", List.of("MIG 1"))),
                Rejection.MALFORMED_NAME, "'migDevices[0]'");
        assertRejected(parse(RecordParser.GPU_SAMPLE, with(gpuSample(), "error", " ")), Rejection.OUT_OF_RANGE,
                "'error'");
        assertRejected(parse(RecordParser.GPU_SAMPLE, with(gpuSample(), "utilizationPercent", 140.0)),
                Rejection.OUT_OF_RANGE, "'utilizationPercent'");
    }

    /** rdma.nodes (issue 38): jobs watch's Present/Deleted per node. */
    @Test
    void shouldCheckNodeRecords() {
        Map<String, Object> deleted = new LinkedHashMap<>(Map.of("v", 1, "node", "cn-hangzhou.10.0.1.23",
                "state", NodeRecord.DELETED, "at", KAFKA_TS));
        assertThat(parse(RecordParser.NODE, deleted).value()).isEqualTo(
                NodeRecord.deleted("cn-hangzhou.10.0.1.23", KAFKA_TS));
        assertRejected(parse(RecordParser.NODE, with(deleted, "state", "Gone")), Rejection.UNKNOWN_VALUE,
                "'Gone'", "Deleted, Present");
        assertRejected(parse(RecordParser.NODE, with(deleted, "at", 1)), Rejection.IMPLAUSIBLE_TIME, "'at'");
        assertRejected(parse(RecordParser.NODE, with(deleted, "node", "a/b")), Rejection.MALFORMED_NAME, "'node'");
        assertRejected(parse(RecordParser.NODE, with(deleted, "v", 2)), Rejection.UNKNOWN_VERSION, "2");
    }

    @Test
    void shouldCheckAlertTimesAndPort() {
        Alert ok = new Alert(1, "id", Alert.LINK_DOWN, Alert.RESOLVED, "critical", null, null, "n1", "mlx5_0", 1,
                KAFKA_TS, KAFKA_TS + 4_000, KAFKA_TS + 60_000, "down", Map.of());
        assertThat(ContractChecks.alert(ok)).isNull();
        assertThat(ContractChecks.alert(new Alert(1, "id", Alert.LINK_DOWN, Alert.RESOLVED, "critical", null, null,
                "n1", "mlx5_0", 1, KAFKA_TS, KAFKA_TS + 4_000, KAFKA_TS - 1, "down", Map.of())).message())
                .contains("'endsAt'", "before startsAt");
        assertThat(ContractChecks.alert(new Alert(1, "id", Alert.LINK_DOWN, Alert.FIRING, "critical", null, null,
                "n1", "mlx5_0", 0, KAFKA_TS, KAFKA_TS, null, "down", Map.of())).code())
                .isEqualTo(Rejection.OUT_OF_RANGE);
        assertThat(ContractChecks.alert(new Alert(1, "id", Alert.LINK_DOWN, Alert.FIRING, "critical", null, null,
                null, null, null, -5, KAFKA_TS, null, "down", Map.of())).message()).contains("'startsAt' is -5");
    }
}
