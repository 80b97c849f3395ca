package io.rdmamon.collector;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The JVM options the collector runs with, from {@code collector/jvm.options} on the class path: one file read by the
 * launcher and the image (as a {@code java @file} argument file) and by the benchmark that measures them.
 */
public final class CollectorJvmOptions {
    public static final String RESOURCE = "/collector/jvm.options";
    /**
     * The environment the collector's JVM runs with, set by the launcher and the image as well: glibc gives each
     * thread that allocates a malloc arena of its own (up to 8 per core), whose pages stay resident; two are plenty
     * for a JVM whose Java heap is not malloc's.
     */
    public static final Map<String, String> ENVIRONMENT = Map.of("MALLOC_ARENA_MAX", "2");

    private CollectorJvmOptions() {
    }

    /** The options, in order; {@code #} starts a comment, as in a java argument file. */
    public static List<String> load() {
        try (InputStream in = CollectorJvmOptions.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not on the class path");
            }
            return Stream.of(new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n"))
                    .map(line -> line.replaceAll("#.*", "").trim()).filter(line -> !line.isEmpty())
                    .flatMap(line -> Stream.of(line.split("\\s+"))).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
