package io.rdmamon.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Reading the logs of child processes (benchmarks, tests) after the fact. */
public final class LogFiles {
    private LogFiles() {
    }

    /** The last {@code count} lines of {@code file} (all of them when it has fewer). */
    public static List<String> lastLines(Path file, int count) throws IOException {
        List<String> lines = Files.readAllLines(file);
        return lines.subList(Math.max(0, lines.size() - count), lines.size());
    }
}
