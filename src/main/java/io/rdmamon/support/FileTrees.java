package io.rdmamon.support;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Removing (and measuring) the temporary folders the demo, the benchmarks and replay make. */
public final class FileTrees {
    private static final Logger log = LoggerFactory.getLogger(FileTrees.class);

    private FileTrees() {
    }

    /** Deletes {@code root} and everything below it; what cannot be deleted is logged, never thrown. */
    public static void deleteQuietly(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            log.warn("could not remove {}: {}", root, e.getMessage());
        }
    }

    /**
     * Bytes in the regular files below {@code root}; files that vanish while counting count as 0, and so does a root
     * that was never created (a stream app whose stores are all in memory).
     */
    public static long sizeBytes(Path root) throws IOException {
        if (!Files.exists(root)) {
            return 0;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            return paths.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }
}
