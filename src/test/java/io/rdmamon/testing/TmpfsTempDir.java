package io.rdmamon.testing;

import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDirFactory;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code @TempDir(factory = TmpfsTempDir.class)}: a temporary folder on tmpfs ({@code /dev/shm}) when there is one,
 * else the default. For tests that rewrite many small files: on ext4 each rename over an existing file flushes data.
 */
public final class TmpfsTempDir implements TempDirFactory {
    private static final Path SHM = Path.of("/dev/shm");

    @Override
    public Path createTempDirectory(AnnotatedElementContext element, ExtensionContext context) throws Exception {
        if (Files.isDirectory(SHM) && Files.isWritable(SHM)) {
            return Files.createTempDirectory(SHM, "rdmamon-test-");
        }
        return Files.createTempDirectory("rdmamon-test-");
    }
}
