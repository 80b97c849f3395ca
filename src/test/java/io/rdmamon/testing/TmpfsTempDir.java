package io.rdmamon.testing;

import io.rdmamon.sim.SysfsTreeWriter;
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

    @Override
    public Path createTempDirectory(AnnotatedElementContext element, ExtensionContext context) throws Exception {
        return Files.createTempDirectory(SysfsTreeWriter.preferredTempRoot(), "rdmamon-test-");
    }
}
