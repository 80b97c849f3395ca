package io.rdmamon.streams;

import io.rdmamon.model.DeadLetter;
import io.rdmamon.model.Json;
import io.rdmamon.model.JobRecord;
import io.rdmamon.testing.TopologyHarness;
import io.rdmamon.testing.TrainingTraffic;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class DeadLetterTest {
    static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path stateDir;

    @Test
    void shouldSendPoisonRecordsToDeadLetterTopicWithReasonAndKeepProcessing() {
        TrainingTraffic sim = new TrainingTraffic();
        TrainingTraffic.Job job = sim.job("uid-a", List.of("n1"), List.of("erdma_0")).trains(T0, Long.MAX_VALUE);
        sim.record(job, JobRecord.RUNNING, T0);
        List<TrainingTraffic.Event> events = sim.run(T0, T0 + 30_000);
        // link health of every sample (one a second), to count that the good records went on
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of(
                StreamsAppConfig.LINK_HEALTH_INTERVAL_CONFIG, 1_000))) {
            StreamsAppConfig.TopicNames t = h.cfg.topics();
            h.feed(events.subList(0, events.size() / 2));
            int linkHealthBefore = h.linkHealth.size();
            h.raw(t.portSamples(), "n1/erdma_0/1", "not json {", T0 + 15_500)
                    .raw(t.portSamples(), "n1/erdma_0/1", "{\"v\":2,\"node\":\"n1\",\"device\":\"erdma_0\",\"port\":1,"
                            + "\"ts\":1}", T0 + 15_500)
                    .raw(t.portSamples(), "n1/erdma_0/1", "{\"v\":1,\"node\":\"n1\",\"device\":\"erdma_0\",\"port\":1}",
                            T0 + 15_500)
                    .raw(t.hostSamples(), "n1/eth0", "[1,2,3]", T0 + 15_500)
                    .raw(t.jobs(), "other-uid", new String(Json.toBytes(job.record(JobRecord.RUNNING, T0 + 15_000)),
                            StandardCharsets.UTF_8), T0 + 15_500)
                    .raw(t.jobs(), "uid-b", "{\"v\":1,\"uid\":\"uid-b\",\"job\":\"b\",\"state\":\"Paused\","
                            + "\"updatedAt\":1}", T0 + 15_500);
            h.feed(events.subList(events.size() / 2, events.size()));

            assertThat(h.deadLetters).hasSize(6);
            assertThat(h.deadLetters).extracting(r -> reason(r)).containsExactly(
                    "not JSON", "unknown schema version v=2 (this rdmamon reads v=1)", "missing field 'ts'",
                    "not a JSON object", "key 'other-uid' does not match uid 'uid-a' (rdma.jobs is keyed by uid)",
                    "unknown job state 'Paused' (one of Deleted, Failed, Pending, Running, Succeeded)");
            TestRecord<String, byte[]> first = h.deadLetters.get(0);
            DeadLetter letter = Json.MAPPER.convertValue(readTree(first.value()), DeadLetter.class);
            assertThat(letter.sourceTopic()).isEqualTo(t.portSamples());
            assertThat(letter.key()).isEqualTo("n1/erdma_0/1");
            assertThat(new String(Base64.getDecoder().decode(letter.valueBase64()), StandardCharsets.UTF_8))
                    .isEqualTo("not json {");
            assertThat(letter.reason()).startsWith("not JSON: ");
            assertThat(header(first, DeadLetter.TOPIC_HEADER)).isEqualTo(t.portSamples());
            assertThat(h.counter("rdmamon.streams.dead.letters")).isEqualTo(6.0);
            // the good records around the poison ones were all processed
            assertThat(h.linkHealth.size() - linkHealthBefore).isGreaterThanOrEqualTo(13);
            assertThat(h.linkHealth).extracting(l -> l.ts()).doesNotContain(1L);
        }
    }

    @Test
    void shouldSendGpuSamplesOutsideTheirContractToDeadLetterTopicWithReasons() {
        String good = "{\"v\":1,\"node\":\"n1\",\"gpu\":0,\"uuid\":\"GPU-1\",\"ts\":" + (T0 + 1_000)
                + ",\"intervalMs\":1000,\"utilizationPercent\":100,\"memoryUtilizationPercent\":0,"
                + "\"powerWatts\":125.5,\"smClockMHz\":1980,\"processes\":1}";
        try (TopologyHarness h = new TopologyHarness(stateDir, T0, Map.of())) {
            String topic = h.cfg.topics().gpuSamples();
            h.raw(topic, "n1/0", good, T0 + 1_000)
                    .raw(topic, "n1/0", good.replace("\"gpu\":0", "\"gpu\":-1"), T0 + 1_000)
                    .raw(topic, "n1/0", good.replace("\"intervalMs\":1000", "\"intervalMs\":-1"), T0 + 1_000)
                    // a GPU's first sample: no interval behind it, in the contract
                    .raw(topic, "n1/0", good.replace("\"intervalMs\":1000", "\"intervalMs\":0"), T0 + 1_000)
                    .raw(topic, "n1/0", good.replace("\"uuid\":\"GPU-1\",", ""), T0 + 1_000)
                    .raw(topic, "n1/0", good.replace("\"utilizationPercent\":100", "\"utilizationPercent\":101"),
                            T0 + 1_000)
                    .raw(topic, "n1/0", good.replace("\"memoryUtilizationPercent\":0",
                            "\"memoryUtilizationPercent\":-3"), T0 + 1_000)
                    .raw(topic, "n1/0", good.replace("125.5", "-1"), T0 + 1_000)
                    .raw(topic, "n1/0", good.replace("\"processes\":1", "\"processes\":-2"), T0 + 1_000)
                    .raw(topic, "n1/0", good.replace(",\"ts\":" + (T0 + 1_000), ""), T0 + 1_000)
                    // the driver reports nothing: nulls are in the contract
                    .raw(topic, "n1/0", good.replace("\"powerWatts\":125.5", "\"powerWatts\":null")
                            .replace("\"processes\":1", "\"processes\":null"), T0 + 1_000);

            assertThat(h.deadLetters).extracting(DeadLetterTest::reason).containsExactly(
                    "field 'gpu' is -1: GPUs are numbered from 0",
                    "field 'intervalMs' is negative: -1",
                    "missing field 'uuid'",
                    "field 'utilizationPercent' is 101.0: above 100 %",
                    "field 'memoryUtilizationPercent' is negative: -3.0",
                    "field 'powerWatts' is negative: -1.0",
                    "field 'processes' is negative: -2",
                    "missing field 'ts'");
            assertThat(h.deadLetters).allSatisfy(r -> assertThat(header(r, DeadLetter.TOPIC_HEADER)).isEqualTo(topic));
            assertThat(h.counter("rdmamon.streams.dead.letters")).isEqualTo(8.0);
        }
    }

    private static String reason(TestRecord<String, byte[]> record) {
        String reason = header(record, DeadLetter.REASON_HEADER);
        return reason.startsWith("not JSON") ? "not JSON" : reason;
    }

    private static String header(TestRecord<String, byte[]> record, String name) {
        Header h = record.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static com.fasterxml.jackson.databind.JsonNode readTree(byte[] bytes) {
        try {
            return Json.MAPPER.readTree(bytes);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

}
