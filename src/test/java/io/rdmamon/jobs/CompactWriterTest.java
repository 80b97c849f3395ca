package io.rdmamon.jobs;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The writer and reader work on plain arrays but keep {@link DataOutputStream}'s bytes, which earlier releases wrote:
 * records of those releases in the repartition topic and the changelogs read back after an upgrade.
 */
class CompactWriterTest {
    private static final String[] NAMES = {"node-7", "mlx5_0", "", "gpu-nöde-β", "a\u0000b", "中文"};

    @Test
    void shouldWriteTheBytesOfDataOutputStream() throws IOException {
        CompactWriter writer = new CompactWriter(4); // grows
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        DataOutputStream data = new DataOutputStream(expected);
        for (String name : NAMES) {
            writer.writeByte(7);
            writer.writeLong(-1_234_567_890_123L);
            writer.writeDouble(3.25e9);
            writer.writeBoolean(true);
            writer.string(name);
            data.writeByte(7);
            data.writeLong(-1_234_567_890_123L);
            data.writeDouble(3.25e9);
            data.writeBoolean(true);
            data.writeByte(1); // varInt(1): a new string
            data.writeUTF(name);
        }
        assertThat(writer.toByteArray()).isEqualTo(expected.toByteArray());
    }

    @Test
    void shouldReadBackWhatItWrote() throws IOException {
        CompactWriter writer = new CompactWriter(16);
        for (String name : NAMES) {
            writer.string(name);
            writer.writeLong(Long.MIN_VALUE);
            writer.varInt(300);
        }
        writer.string(NAMES[0]); // again: its index
        CompactReader reader = new CompactReader(writer.toByteArray());
        for (String name : NAMES) {
            assertThat(reader.string()).isEqualTo(name);
            assertThat(reader.readLong()).isEqualTo(Long.MIN_VALUE);
            assertThat(reader.varInt()).isEqualTo(300);
        }
        assertThat(reader.string()).isEqualTo(NAMES[0]);
        assertThat(reader.atEnd()).isTrue();
    }

    @Test
    void shouldFailOnATruncatedRecord() throws IOException {
        CompactWriter writer = new CompactWriter(16);
        writer.string("mlx5_0");
        writer.writeLong(42);
        byte[] bytes = writer.toByteArray();
        CompactReader reader = new CompactReader(Arrays.copyOf(bytes, bytes.length - 1));
        assertThat(reader.string()).isEqualTo("mlx5_0");
        assertThatThrownBy(reader::readLong).isInstanceOf(EOFException.class).hasMessageContaining("ends early");
        assertThatThrownBy(() -> new CompactReader(new byte[] {1, 0, 9, 'x'}).string())
                .isInstanceOf(EOFException.class);
    }
}
