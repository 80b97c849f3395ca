package io.rdmamon.streams;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.model.Alert;
import io.rdmamon.model.Json;
import io.rdmamon.model.JobBandwidth;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.NodePartitioner;
import io.rdmamon.model.PortSample;
import io.rdmamon.replay.InputKind;
import io.rdmamon.replay.Replayer;
import io.rdmamon.replay.StreamsReplay;
import io.rdmamon.scenario.ScenarioCatalog;
import io.rdmamon.scenario.ScenarioFiles;
import io.rdmamon.scenario.ScenarioRecorder;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A backlog as a bridge or a dump flushes it, on a real broker: the {@code hang} scenario's job records, then its
 * samples one partition after another (each in time order), every record stamped with the time of sending (the
 * producer's default). The same scenario ended 2 minutes, 8 days and 30 days ago, each to an app of its own, in
 * partition order or in reverse. Every one gives the replay's windows and alert ({@code rdmamon
 * replay}, in process, moved by the same whole minutes): Kafka Streams knows the records by their own times ({@link
 * EventTimeExtractor}), and the samples judged before the job's hold reached their partition (a whole partition's
 * backlog goes by in less than a commit) are given to the job when it does ({@code NodeAssigner}).
 *
 * <p>The outputs carry the traffic's time in their payloads. The app creates its output topics itself, stamped with
 * the time the broker wrote them ({@code LogAppendTime}): the broker's retention (7 days by default) counts from then,
 * not from the traffic's time, or it would delete the windows and alerts of a backlog older than that at its next
 * retention check, before the sink wrote them to InfluxDB.
 */
class BacklogOrderTest {
    private static final int PARTITIONS = 4;
    /**
     * How long ago the backlogs ended: fresh, and beyond the broker's default 7-day retention (2 days, which the
     * issue also names, adds nothing these do not cover and 20 s to the suite).
     */
    private static final List<Duration> AGES = List.of(Duration.ofMinutes(2), Duration.ofDays(8),
            Duration.ofDays(30));

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /**
     * What an app (or the replay) made of the scenario: its alerts in order and its windows' figures in window order
     * (ranks reporting of expected, tx, rx and host bytes per second, to 6 digits: sums in another order differ in
     * the last bits). A job's window waits for every rank the job expects ({@code JobWindowProcessor}), so a backlog
     * read one partition after another gives the replay's figures too.
     */
    private record Result(List<Alert> alerts, List<String> windows) {
        /** With the windows' times moved back by {@code shiftMs}. */
        static Result of(List<Alert> alerts, List<JobBandwidth> windows, long shiftMs) {
            return new Result(List.copyOf(alerts), windows.stream()
                    .sorted(Comparator.comparingLong(JobBandwidth::windowStart))
                    .map(b -> figures(b, shiftMs)).toList());
        }

        private static String figures(JobBandwidth b, long shiftMs) {
            return String.format(Locale.ROOT, "%d ranks %d/%d tx %.6g rx %.6g host %s", b.windowStart() - shiftMs,
                    b.ranksReporting(), b.ranksExpected(), b.txBytesPerSec(), b.rxBytesPerSec(),
                    b.hostBytesPerSec() == null ? "-" : String.format(Locale.ROOT, "%.6g",
                            b.hostBytesPerSec()));
        }
    }

    @Test
    void shouldGiveTheReplaysWindowsAndAlertsWhenABacklogComesPartitionAfterPartitionStampedWhenSentWhateverItsAge()
            throws Exception {
        ScenarioRecorder.Recording recording = ScenarioRecorder.record(ScenarioCatalog.get("hang", 1));
        Result replay = replay(recording);
        assertThat(replay.alerts()).extracting(Alert::type).containsExactly(Alert.STALLED_SYNC);
        assertThat(replay.windows()).as("the replay: every window has every rank").isNotEmpty()
                .allSatisfy(w -> assertThat(w).contains(" ranks 4/4 "));

        long end = recording.portSamples().stream().mapToLong(PortSample::ts).max().orElseThrow();
        long sentFrom = System.currentTimeMillis();
        List<Backlog> backlogs = new ArrayList<>();
        for (Duration age : AGES) {
            // whole minutes, so the job windows and every detector's intervals fall as in the replay
            long shift = Math.floorDiv(sentFrom - age.toMillis() - end, 60_000L) * 60_000;
            boolean reverse = backlogs.size() % 2 == 1;
            backlogs.add(new Backlog(age + (reverse ? " ago, reverse partition order" : " ago, partition order"),
                    shifted(recording, shift), shift, reverse, start("age" + backlogs.size())));
        }
        KafkaProducer<String, byte[]> producer = StreamsAppTest.producer();
        open.add(producer);
        for (Backlog b : backlogs) {
            // the job's records, then straight away its samples: the job's hold crosses a repartition topic and a
            // commit before it reaches the samples' partitions, and the first partition's samples are all read by then
            b.recording().jobs().forEach(j -> producer.send(
                    new ProducerRecord<>(b.out().topics.jobs(), j.uid(), Json.toBytes(j))));
        }
        for (int i = 0; i < PARTITIONS; i++) {
            for (Backlog b : backlogs) {
                sendPartition(producer, b.out().topics, b.recording(), b.reverse() ? PARTITIONS - 1 - i : i);
            }
        }
        producer.flush();

        for (Backlog b : backlogs) {
            await().atMost(Duration.ofSeconds(120)).alias(b.name() + ": the replay's windows").until(() ->
                    b.out().poll().bandwidth.size() >= replay.windows().size() && !b.out().alerts.isEmpty());
        }
        Thread.sleep(1_000); // anything written twice would show by now
        for (Backlog b : backlogs) {
            StreamsAppTest.Outputs out = b.out().poll();
            Result result = Result.of(out.alerts, out.bandwidth, b.shift());
            assertThat(result.windows()).as(b.name() + ": every window of the replay, each once, with its figures")
                    .isEqualTo(replay.windows());
            assertThat(result.alerts()).extracting(a -> a.type() + " " + a.status() + " " + a.job()).as(b.name())
                    .isEqualTo(replay.alerts().stream().map(a -> a.type() + " " + a.status() + " " + a.job())
                            .toList());
            assertThat(result.alerts().get(0).startsAt() - b.shift()).as(b.name() + ": the hang's onset")
                    .isCloseTo(replay.alerts().get(0).startsAt(), org.assertj.core.data.Offset.offset(1_000L));
            assertThat(out.oldestTimestamp).as(b.name() + ": outputs stamped when written, kept by the retention")
                    .isGreaterThanOrEqualTo(sentFrom);
        }
    }

    private record Backlog(String name, ScenarioRecorder.Recording recording, long shift, boolean reverse,
                           StreamsAppTest.Outputs out) {
    }

    /** The recording with every time moved by {@code shiftMs}. */
    private static ScenarioRecorder.Recording shifted(ScenarioRecorder.Recording r, long shiftMs) {
        return new ScenarioRecorder.Recording(
                r.portSamples().stream().map(s -> s.withTs(s.ts() + shiftMs)).toList(),
                r.hostSamples().stream().map(s -> s.withTs(s.ts() + shiftMs)).toList(),
                r.jobs().stream().map(j -> new JobRecord(j.v(), j.uid(), j.job(), j.namespace(), j.state(),
                        j.updatedAt() + shiftMs, j.startedAt() == null ? null : j.startedAt() + shiftMs,
                        j.worldSize(), j.ranks(), j.labels())).toList(), r.truth());
    }

    private Result replay(ScenarioRecorder.Recording recording) throws IOException {
        Path files = dir.resolve("scenario");
        ScenarioFiles.write(recording, files);
        StreamsAppConfig cfg = StreamsReplay.config(null, Map.of(), Map.of());
        List<Alert> alerts = new ArrayList<>();
        List<JobBandwidth> windows = new ArrayList<>();
        StreamsReplay.replayer(cfg, Replayer.Order.ARRIVAL, new SimpleMeterRegistry()).run(List.of(
                new Replayer.Input(InputKind.JOBS, files.resolve(ScenarioFiles.JOBS)),
                new Replayer.Input(InputKind.PORT_SAMPLES, files.resolve(ScenarioFiles.SAMPLES)),
                new Replayer.Input(InputKind.HOST_SAMPLES, files.resolve(ScenarioFiles.HOST_SAMPLES))), o -> {
            if (o.topic().equals(cfg.topics().alerts())) {
                alerts.add(StreamsAppTest.Outputs.read(o.value(), Alert.class));
            } else if (o.topic().equals(cfg.topics().jobBandwidth())) {
                windows.add(StreamsAppTest.Outputs.read(o.value(), JobBandwidth.class));
            }
        });
        return Result.of(alerts, windows, 0);
    }

    /** An app of its own, which creates its topics. */
    private StreamsAppTest.Outputs start(String name) {
        String suffix = name + "-" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, Object> settings = StreamsAppTest.settings(suffix, "rdmamon-backlog-" + suffix);
        settings.put(StreamsAppConfig.TOPICS_PARTITIONS_CONFIG, PARTITIONS);
        settings.put(StreamsAppConfig.STATE_DIR_CONFIG, dir.resolve(suffix).toString());
        StreamsAppConfig cfg = new StreamsAppConfig(settings);
        StreamsApp app = new StreamsApp(cfg, new SimpleMeterRegistry()).start();
        open.add(app);
        StreamsAppTest.Outputs out = new StreamsAppTest.Outputs(cfg.topics());
        open.add(out);
        await().atMost(Duration.ofSeconds(60)).until(() -> app.state() == KafkaStreams.State.RUNNING);
        return out;
    }

    /**
     * The partition's samples, both topics in time order (port samples first on equal times, as the replay has them),
     * as a bridge flushes a node's buffer; no timestamp: the producer stamps the time of sending.
     */
    private static void sendPartition(KafkaProducer<String, byte[]> producer, StreamsAppConfig.TopicNames topics,
                                      ScenarioRecorder.Recording recording, int partition) {
        List<Map.Entry<Long, ProducerRecord<String, byte[]>>> records = new ArrayList<>();
        recording.portSamples().stream().filter(s -> NodePartitioner.partition(s.key(), PARTITIONS) == partition)
                .forEach(s -> records.add(Map.entry(s.ts(),
                        new ProducerRecord<>(topics.portSamples(), s.key(), Json.toBytes(s)))));
        recording.hostSamples().stream().filter(s -> NodePartitioner.partition(s.key(), PARTITIONS) == partition)
                .forEach(s -> records.add(Map.entry(s.ts(),
                        new ProducerRecord<>(topics.hostSamples(), s.key(), Json.toBytes(s)))));
        records.sort(Map.Entry.comparingByKey());
        records.forEach(r -> producer.send(r.getValue()));
    }
}
