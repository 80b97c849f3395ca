package io.rdmamon.jobs;

import io.rdmamon.cli.Main;
import io.rdmamon.testing.SharedKafka;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class JobsPublishCommandTest {
    @TempDir
    Path dir;

    @Test
    void shouldPublishValidLinesKeyedByUidAndReportBadLinesWithTheirNumber() throws Exception {
        String topic = SharedKafka.uniqueTopic("rdma.jobs");
        String good1 = "{\"v\":1,\"uid\":\"u-1\",\"job\":\"llama\",\"namespace\":\"team-a\",\"state\":\"Running\","
                + "\"updatedAt\":1700000000000,\"startedAt\":1699999990000,\"worldSize\":2,\"ranks\":["
                + "{\"rank\":0,\"pod\":\"llama-master-0\",\"node\":\"n1\",\"devices\":[\"erdma_0\"]},"
                + "{\"rank\":1,\"pod\":\"llama-worker-0\",\"node\":\"n2\",\"devices\":[\"erdma_0\"]}],"
                + "\"labels\":{\"team\":\"nlp\"},\"extra\":\"kept\"}";
        String good2 = "{\"v\":1,\"uid\":\"u-1\",\"job\":\"llama\",\"state\":\"Succeeded\",\"updatedAt\":1700000600000}";
        Files.writeString(dir.resolve("jobs.jsonl"), String.join("\n", "# jobs of the demo", good1,
                "{\"v\":1,\"job\":\"no-uid\",\"state\":\"Running\",\"updatedAt\":1}", "", "not json", good2));

        StringWriter err = new StringWriter();
        CommandLine cmd = Main.commandLine();
        cmd.setErr(new PrintWriter(err, true));
        int exit = cmd.execute("jobs", "publish", dir.resolve("jobs.jsonl").toString(),
                "--bootstrap-servers", SharedKafka.bootstrapServers(), "--topic", topic);

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).contains("line 3: missing field 'uid'", "line 5: not JSON",
                "published 2 job record(s) to " + topic + ", rejected 2 line(s)");
        List<ConsumerRecord<String, String>> records = readAll(topic, 2);
        assertThat(records).extracting(ConsumerRecord::key).containsExactly("u-1", "u-1");
        assertThat(records).extracting(ConsumerRecord::timestamp).containsExactly(1700000000000L, 1700000600000L);
        assertThat(records.get(0).value()).isEqualTo(good1);
    }

    @Test
    void shouldFailClearlyWhenFileIsMissing() {
        StringWriter err = new StringWriter();
        CommandLine cmd = Main.commandLine();
        cmd.setErr(new PrintWriter(err, true));
        int exit = cmd.execute("jobs", "publish", dir.resolve("nope.jsonl").toString(),
                "--bootstrap-servers", "127.0.0.1:1");
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("no such file").contains("nope.jsonl");
    }

    static List<ConsumerRecord<String, String>> readAll(String topic, int expected) {
        Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "test-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.currentTimeMillis() + 30_000;
            while (out.size() < expected && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }
}
