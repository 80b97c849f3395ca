package io.rdmamon.collector.publish;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
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

    private static List<PendingRecord> drain(SpillLog spill) throws IOException {
        List<PendingRecord> out = new ArrayList<>();
        for (PendingRecord r = spill.poll(); r != null; r = spill.poll()) {
            out.add(r);
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
    void shouldReturnRecordsInOrderAcrossSegmentsAndRestartsWhenPrependedAndAppended() throws IOException {
        try (SpillLog spill = SpillLog.open(dir, SEGMENT_BYTES, "k")) {
            for (int i = 10; i < 800; i++) {
                spill.append(record(i));
            }
            spill.prepend(List.of(record(0), record(1), record(2)));
            assertThat(spill.records()).isEqualTo(793);
            assertThat(spill.bytes()).isEqualTo(Stream.concat(Stream.of(0, 1, 2), Stream.iterate(10, i -> i < 800, i -> i + 1))
                    .mapToLong(i -> record(i).sizeBytes()).sum());
        }
        assertThat(segmentFiles()).hasSizeGreaterThan(2);

        List<PendingRecord> read;
        try (SpillLog spill = SpillLog.open(dir, SEGMENT_BYTES, "k")) {
            assertThat(spill.records()).isEqualTo(793);
            read = drain(spill);
            assertThat(spill.isEmpty()).isTrue();
        }
        assertThat(read).hasSize(793);
        assertSameRecord(read.get(0), record(0));
        assertSameRecord(read.get(3), record(10));
        assertSameRecord(read.get(792), record(799));
        assertThat(segmentFiles()).as("read-through segments are deleted").isEmpty();
    }

    @Test
    void shouldKeepIntactRecordsAndCutTheRestWhenTheLastWriteWasTorn() throws IOException {
        try (SpillLog spill = SpillLog.open(dir, SEGMENT_BYTES, "k")) {
            for (int i = 0; i < 5; i++) {
                spill.append(record(i));
            }
        }
        Path segment = segmentFiles().get(0);
        long size = Files.size(segment);
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            channel.truncate(size - 10); // a crash in the middle of the fifth record
        }

        try (SpillLog spill = SpillLog.open(dir, SEGMENT_BYTES, "k")) {
            assertThat(spill.records()).isEqualTo(4);
            spill.append(record(5));
            List<PendingRecord> read = drain(spill);
            assertThat(read).hasSize(5);
            assertSameRecord(read.get(3), record(3));
            assertSameRecord(read.get(4), record(5));
        }
    }

    @Test
    void shouldSetAsideAFileThatIsNotASpillFileWhenOpening() throws IOException {
        Files.writeString(dir.resolve("3.spill"), "not a spill file");
        try (SpillLog spill = SpillLog.open(dir, SEGMENT_BYTES, "k")) {
            assertThat(spill.isEmpty()).isTrue();
            spill.append(record(1));
            assertSameRecord(spill.poll(), record(1));
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
