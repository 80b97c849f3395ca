package io.rdmamon.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;

/**
 * A java argument file on the class path ({@code collector/jvm.options}, {@code server/jvm.options}): the launcher
 * and the images pass it to {@code java} as {@code @file}; the benchmarks read it here to start the JVM they measure
 * the same way.
 */
public final class JvmOptionsFile {
    private JvmOptionsFile() {
    }

    /** The options, in order; {@code #} starts a comment, as in a java argument file. */
    public static List<String> load(String resource) {
        try (InputStream in = JvmOptionsFile.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is not on the class path");
            }
            return Stream.of(new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n"))
                    .map(line -> line.replaceAll("#.*", "").trim()).filter(line -> !line.isEmpty())
                    .flatMap(line -> Stream.of(line.split("\\s+"))).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
