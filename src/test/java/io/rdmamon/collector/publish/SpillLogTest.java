package io.rdmamon.collector.publish;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SpillLogTest {
    private static final long SEGMENT_BYTES = 64 * 1024;

    @TempDir
    Path dir;

    private static PendingRecord record(int i) {
        return new PendingRecord("rdma.port-samples", i % 3 == 0 ? null : "n1/mlx5_0/" + (i % 2), 1_000L + i,
                ("{\"i\":" + i + ",\"pad\":\"" + "y".repeat(200) + "\"}").getBytes(StandardCharsets.UTF_8), 7L * i);
    }

    private static List<PendingRecord> drain(SpillLog spill, long from) throws IOException {
        List<PendingRecord> out = new ArrayList<>();
        long seq = from;
        for (SpillLog.Read r = spill.read(seq, Long.MAX_VALUE); r != null; r = spill.read(seq, Long.MAX_VALUE)) {
            assertThat(r.seq()).as("sequence numbers follow on").isEqualTo(seq);
            out.add(r.record());
            seq = r.seq() + 1;
        }
        return out;
    }

    private static void assertSameRecord(PendingRecord actual, PendingRecord expected) {
        assertThat(actual.topic()).isEqualTo(expected.topic());
        assertThat(actual.key()).isEqualTo(expected.key());
        assertThat(actual.timestampMs()).isEqualTo(expected.timestampMs());
        assertThat(actual.publishedAtMs()).isEqualTo(expected.publishedAtMs());
        assertThat(actual.value()).isEqualTo(expected.value());
    }

    @Test
    void shouldReplayFromTheDeliveredMarkInOrderAcrossSegmentsWhenReopened() throws IOException {
        try (SpillLog spill = SpillLog.open(dir, SEGMENT_BYTES, "k")) {
            for (int i = 0; i < 800; i++) {
                spill.append(record(i), i);
            }
            assertThat(spill.records()).isEqualTo(800);
            assertThat(spill.bytes()).isEqualTo(IntStream.range(0, 800).mapToLong(i -> record(i).sizeBytes()).sum()
                    + (long) spill.segmentCount() * SpillSegment.HEADER_BYTES);
            spill.flush();
            spill.writeMark(300, true);
        }
        assertThat(segmentFiles()).hasSizeGreaterThan(2);

        try (SpillLog spill = SpillLog.open(dir, SEGMENT_BYTES, "k")) {
            assertThat(spill.startSeq()).isEqualTo(300);
            assertThat(spill.endSeq()).isEqualTo(800);
            assertThat(spill.records()).isEqualTo(500);
            List<PendingRecord> read = drain(spill, 300);
            assertThat(read).hasSize(500);
            assertSameRecord(read.get(0), record(300));
            assertSameRecord(read.get(499), record(799));
            spill.writeMark(800, true);
            spill.deleteDelivered(800);
            assertThat(spill.segmentCount()).as("the newest segment stays for appends").isEqualTo(1);
        }
        try (SpillLog spill = SpillLog.open(dir, SEGMENT_BYTES, "k")) {
            assertThat(spill.records()).isZero();
            assertThat(spill.endSeq()).as("numbering goes on after the mark").isEqualTo(800);
        }
        assertThat(segmentFiles()).as("segments delivered through are deleted").isEmpty();
    }

    @Test
    void shouldReadRecordsStillInTheWriteBufferAndStopAtTheLimit() throws IOException {
        try (SpillLog spill = SpillLog.open(dir, SEGMENT_BYTES, "k")) {
            for (int i = 0; i < 10; i++) {
                spill.append(record(i), i);
            }
            assertThat(spill.holds(3)).as("written on demand").isTrue();
            assertThat(spill.holds(10)).isFalse();
            assertThat(spill.read(0, 1).seq()).isZero();
            assertThat(spill.read(1, 1)).as("record 1 is at the limit (it is in memory)").isNull();
            assertThat(spill.read(5, 10).seq()).as("skips forward").isEqualTo(5);
        }
    }

    @Test
    void shouldKeepIntactRecordsAndCutTheRestWhenTheLastWriteWasTorn() throws IOException {
        try (SpillLog spill = SpillLog.open(dir, SEGMENT_BYTES, "k")) {
            for (int i = 0; i < 5; i++) {
                spill.append(record(i), i);
            }
        }
        Path segment = segmentFiles().get(0);
        long size = Files.size(segment);
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            channel.truncate(size - 10); // a crash in the middle of the fifth record
        }

        try (SpillLog spill = SpillLog.open(dir, SEGMENT_BYTES, "k")) {
            assertThat(spill.damagedSegments()).isEqualTo(1);
            assertThat(spill.records()).isEqualTo(4);
            assertThat(spill.endSeq()).isEqualTo(4);
            spill.append(record(5), 4);
            List<PendingRecord> read = drain(spill, 0);
            assertThat(read).hasSize(5);
            assertSameRecord(read.get(3), record(3));
            assertSameRecord(read.get(4), record(5));
        }
    }

    @Test
    void shouldSkipAndCountRecordsMissingBetweenSegmentsWhenOpening() throws IOException {
        try (SpillLog spill = SpillLog.open(dir, SEGMENT_BYTES, "k")) {
            spill.append(record(0), 0);
            spill.append(record(1), 1);
            spill.append(record(5), 5); // 2..4 could not be written (disk full): a new segment
        }
        try (SpillLog spill = SpillLog.open(dir, SEGMENT_BYTES, "k")) {
            assertThat(spill.lostRecords()).isEqualTo(3);
            assertThat(spill.read(2, Long.MAX_VALUE).seq()).isEqualTo(5);
        }
    }

    @Test
    void shouldCopyTheRecordsOfAnEarlierVersionsSpillFilesInOrderWhenOpening() throws IOException {
        try (SpillLog spill = SpillLog.open(dir, SEGMENT_BYTES, "k")) {
            for (int i = 0; i < 300; i++) {
                spill.append(record(i), i);
            }
        }
        // version 1: the same records behind an 8-byte header (magic, version 1), no delivered mark
        List<byte[]> segments = new ArrayList<>();
        for (Path segment : segmentFiles()) {
            segments.add(Files.readAllBytes(segment));
            Files.delete(segment);
        }
        segments.sort(Comparator.comparingLong(v2 -> ByteBuffer.wrap(v2, 8, 8).getLong())); // by first sequence
        for (int id = 0; id < segments.size(); id++) {
            byte[] v2 = segments.get(id);
            ByteBuffer v1 = ByteBuffer.allocate(v2.length - 8).putInt(0x52445350).putInt(1)
                    .put(v2, SpillSegment.HEADER_BYTES, v2.length - SpillSegment.HEADER_BYTES);
            Files.write(dir.resolve(id + SpillSegment.SUFFIX), v1.array());
        }
        assertThat(segments).as("records in more than one file").hasSizeGreaterThan(1);
        Files.delete(dir.resolve(DeliveredMark.FILE));

        try (SpillLog spill = SpillLog.open(dir, SEGMENT_BYTES, "k")) {
            List<PendingRecord> read = drain(spill, 0);
            assertThat(read).hasSize(300);
            for (int i = 0; i < 300; i += 37) {
                assertSameRecord(read.get(i), record(i));
            }
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(name -> name.endsWith(".v1"));
        }
    }

    @Test
    void shouldSetAsideAFileThatIsNotASpillFileWhenOpening() throws IOException {
        Files.writeString(dir.resolve("3.spill"), "not a spill file");
        try (SpillLog spill = SpillLog.open(dir, SEGMENT_BYTES, "k")) {
            assertThat(spill.records()).isZero();
            spill.append(record(1), 0);
            assertSameRecord(spill.read(0, 1).record(), record(1));
        }
        assertThat(dir.resolve("3.spill.corrupt")).exists();
    }

    @Test
    void shouldRefuseADirectoryAnotherCollectorUsesWhenOpening() throws IOException {
        try (SpillLog ignored = SpillLog.open(dir, SEGMENT_BYTES, "collector.buffer.spill.path")) {
            assertThatThrownBy(() -> SpillLog.open(dir, SEGMENT_BYTES, "collector.buffer.spill.path"))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("collector.buffer.spill.path").hasMessageContaining("in use");
        }
    }

    private List<Path> segmentFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".spill")).sorted().toList();
        }
    }
}
