package io.rdmamon.collector;

import io.rdmamon.support.JvmOptionsFile;

import java.util.List;
import java.util.Map;

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
        return JvmOptionsFile.load(RESOURCE);
    }
}
