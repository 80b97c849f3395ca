package io.rdmamon.replay;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.model.Topics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The replay harness's mechanics, on a small probe topology: port samples echoed to link health, job records echoed to
 * job bandwidth, and a wall-clock punctuator writing ticks to alerts.
 */
class ReplayerTest {
    @TempDir
    Path dir;

    @Test
    void shouldKeepEachFilesOrderAndInterleaveFilesByTimestampWhenOrderIsArrival() throws IOException {
        Path samples = lines("samples.jsonl", sample(1_000), sample(3_000), sample(2_000));
        Path jobs = lines("jobs.jsonl", job(1_500));
        List<Replayer.Output> out = replay(Replayer.Order.ARRIVAL, samples, jobs);
        assertThat(timestamps(out, Topics.LINK_HEALTH)).containsExactly(1_000L, 3_000L, 2_000L);
        assertThat(timestamps(out, Topics.JOB_BANDWIDTH)).containsExactly(1_500L);
    }

    @Test
    void shouldSortAllRecordsByTimestampWhenOrderIsTime() throws IOException {
        Path samples = lines("samples.jsonl", sample(1_000), sample(3_000), sample(2_000));
        assertThat(timestamps(replay(Replayer.Order.TIME, samples, null), Topics.LINK_HEALTH))
                .containsExactly(1_000L, 2_000L, 3_000L);
    }

    @Test
    void shouldAdvanceTheWallClockWithEventTimeSoPunctuatorsFireEverySecond() throws IOException {
        Path samples = lines("samples.jsonl", sample(10_000), sample(20_000), sample(40_000));
        List<Long> ticks = replay(Replayer.Order.ARRIVAL, samples, null).stream()
                .filter(o -> o.topic().equals(Topics.ALERTS)).map(o -> Long.parseLong(o.value())).toList();
        assertThat(ticks).hasSize(30);
        assertThat(ticks.get(ticks.size() - 1)).isEqualTo(40_000L);
    }

    @Test
    void shouldSkipAndCountLinesThatCannotBePlacedInTimeAndPassTheRestThrough() throws IOException {
        Path samples = lines("samples.jsonl", sample(1_000), "not json", "", "[1, 2]",
                "{\"node\":\"n1\",\"ts\":\"yesterday\"}", "{\"v\":1,\"ts\":2000}", sample(3_000));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        List<Replayer.Output> out = new ArrayList<>();
        Replayer.Summary summary = new Replayer(probeTopology(), new Properties(), ReplayTopics.DEFAULT,
                Replayer.Order.ARRIVAL, registry)
                .run(List.of(new Replayer.Input(InputKind.PORT_SAMPLES, samples)), out::add);
        assertThat(summary.skippedLines()).isEqualTo(3);
        assertThat(summary.records()).isEqualTo(3);
        assertThat(registry.get("rdmamon.replay.bad.lines").tag("file", samples.toString()).counter().count())
                .isEqualTo(3.0);
        assertThat(out).filteredOn(o -> o.topic().equals(Topics.LINK_HEALTH))
                .extracting(Replayer.Output::key)
                .containsExactly("n1/mlx5_0/1", null, "n1/mlx5_0/1");
    }

    @Test
    void shouldReturnAnEmptySummaryWhenTheFilesHoldNoRecords() throws IOException {
        Path samples = lines("samples.jsonl", "");
        Replayer.Summary summary = new Replayer(probeTopology(), new Properties(), ReplayTopics.DEFAULT,
                Replayer.Order.ARRIVAL, null)
                .run(List.of(new Replayer.Input(InputKind.PORT_SAMPLES, samples)), o -> { });
        assertThat(summary.records()).isZero();
        assertThat(summary.firstTimestamp()).isNull();
    }

    private List<Replayer.Output> replay(Replayer.Order order, Path samples, Path jobs) throws IOException {
        List<Replayer.Input> inputs = new ArrayList<>();
        if (jobs != null) {
            inputs.add(new Replayer.Input(InputKind.JOBS, jobs));
        }
        inputs.add(new Replayer.Input(InputKind.PORT_SAMPLES, samples));
        List<Replayer.Output> out = new ArrayList<>();
        new Replayer(probeTopology(), new Properties(), ReplayTopics.DEFAULT, order, null).run(inputs, out::add);
        return out;
    }

    private static List<Long> timestamps(List<Replayer.Output> out, String topic) {
        return out.stream().filter(o -> o.topic().equals(topic)).map(Replayer.Output::timestamp).toList();
    }

    private Path lines(String name, String... lines) throws IOException {
        return Files.write(dir.resolve(name), List.of(lines));
    }

    private static String sample(long ts) {
        return "{\"v\":1,\"node\":\"n1\",\"device\":\"mlx5_0\",\"port\":1,\"ts\":" + ts + "}";
    }

    private static String job(long updatedAt) {
        return "{\"v\":1,\"uid\":\"u1\",\"state\":\"Running\",\"updatedAt\":" + updatedAt + "}";
    }

    private static Topology probeTopology() {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(Topics.PORT_SAMPLES, Consumed.with(Serdes.String(), Serdes.String()))
                .to(Topics.LINK_HEALTH, Produced.with(Serdes.String(), Serdes.String()));
        builder.stream(Topics.JOBS, Consumed.with(Serdes.String(), Serdes.String()))
                .to(Topics.JOB_BANDWIDTH, Produced.with(Serdes.String(), Serdes.String()));
        builder.stream(Topics.PORT_SAMPLES + "-unused", Consumed.with(Serdes.String(), Serdes.String()))
                .process(Ticker::new)
                .to(Topics.ALERTS, Produced.with(Serdes.String(), Serdes.String()));
        return builder.build();
    }

    /** Writes the wall-clock time on every wall-clock punctuation. */
    private static final class Ticker implements Processor<String, String, String, String> {
        @Override
        public void init(ProcessorContext<String, String> context) {
            context.schedule(Duration.ofSeconds(1), PunctuationType.WALL_CLOCK_TIME,
                    now -> context.forward(new Record<>("tick", Long.toString(now), now)));
        }

        @Override
        public void process(Record<String, String> record) {
        }
    }
}
