package io.rdmamon.collector.sysfs;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.support.FileTrees;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Files held open between passes: re-read in place, and reopened when they disappear and come back. */
class SysfsFilesTest {
    @TempDir
    Path tmp;

    private final SysfsFiles files = new SysfsFiles(new ReadProblems(new SimpleMeterRegistry()), true);

    @Test
    void shouldReadTheNewValueWhenAHeldFileIsRewrittenInPlace() throws Exception {
        Path counter = tmp.resolve("port_xmit_data");
        Files.writeString(counter, "100\n");
        assertThat(files.readCounter("mlx5_0", counter)).isEqualTo(100L);
        files.endPass();

        Files.writeString(counter, "2500\n");

        assertThat(files.readCounter("mlx5_0", counter)).isEqualTo(2500L);
    }

    @Test
    void shouldReopenACounterFileWhenItDisappearsAndComesBack() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("mlx5_0/ports/1/counters"));
        Path counter = dir.resolve("port_xmit_data");
        Files.writeString(counter, "100\n");
        assertThat(files.readCounter("mlx5_0", counter)).isEqualTo(100L);
        files.endPass();

        FileTrees.deleteQuietly(tmp.resolve("mlx5_0"));
        // the reader lists folders each pass: a gone device's files are not read, and the pass's end closes them
        files.endPass();
        Files.createDirectories(dir);
        Files.writeString(counter, "7\n");

        assertThat(files.readCounter("mlx5_0", counter)).isEqualTo(7L);
    }

    @Test
    void shouldReadAnAttributeThroughItsHeldDescriptorAcrossPasses() throws Exception {
        Path counter = tmp.resolve("port_rcv_data");
        Files.writeString(counter, "100\n");
        SysfsFiles.Attribute attribute = new SysfsFiles.Attribute(counter);
        assertThat(read(attribute)).isEqualTo(100L);
        files.endPass();

        Files.writeString(counter, "2500\n");

        assertThat(read(attribute)).isEqualTo(2500L);
    }

    @Test
    void shouldCloseAnAttributeAPassDidNotReadWhileOthersWereRead() throws Exception {
        Path kept = tmp.resolve("port_xmit_data");
        Path gone = tmp.resolve("port_rcv_data");
        Files.writeString(kept, "1\n");
        Files.writeString(gone, "100\n");
        SysfsFiles.Attribute keptAttribute = new SysfsFiles.Attribute(kept);
        SysfsFiles.Attribute goneAttribute = new SysfsFiles.Attribute(gone);
        read(keptAttribute);
        read(goneAttribute);
        files.endPass();
        read(keptAttribute);
        files.endPass(); // goneAttribute was not read in this pass: its descriptor is closed

        // replaced, not rewritten in place: a descriptor still held would keep reading the old file's 100
        Files.delete(gone);
        Files.writeString(gone, "7\n");

        assertThat(read(goneAttribute)).isEqualTo(7L);
        assertThat(read(keptAttribute)).isEqualTo(1L);
    }

    @Test
    void shouldReopenAnAttributeWhoseDeviceWentAndCameBack() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("mlx5_0/ports/1/hw_counters"));
        Path counter = dir.resolve("rx_write_requests");
        Files.writeString(counter, "100\n");
        SysfsFiles.Attribute attribute = new SysfsFiles.Attribute(counter);
        assertThat(read(attribute)).isEqualTo(100L);
        files.endPass();

        FileTrees.deleteQuietly(tmp.resolve("mlx5_0"));
        // the reader lists folders each pass: a gone device's files are not read, and the pass's end closes them
        files.endPass();
        Files.createDirectories(dir);
        Files.writeString(counter, "7\n");

        assertThat(read(attribute)).isEqualTo(7L);
    }

    private Long read(SysfsFiles.Attribute attribute) {
        return files.readCounterValue("mlx5_0", attribute) ? files.counterValue() : null;
    }
}
