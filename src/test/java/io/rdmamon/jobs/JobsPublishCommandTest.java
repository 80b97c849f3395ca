package io.rdmamon.jobs;

import io.rdmamon.cli.Main;
import io.rdmamon.testing.SharedKafka;
import io.rdmamon.testing.TopicContent;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

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
        List<ConsumerRecord<String, String>> records = readAll(topic);
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

    /** The topic's records up to its end offsets, values as text (no consumer group: nothing to join). */
    static List<ConsumerRecord<String, String>> readAll(String topic) {
        return TopicContent.readAll(SharedKafka.bootstrapServers(), topic).stream()
                .map(r -> new ConsumerRecord<>(r.topic(), r.partition(), r.offset(), r.timestamp(), r.timestampType(),
                        r.serializedKeySize(), r.serializedValueSize(), r.key(),
                        new String(r.value(), java.nio.charset.StandardCharsets.UTF_8), r.headers(), r.leaderEpoch()))
                .toList();
    }
}
