package io.rdmamon.support;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A class-data sharing archive of a role's classes, made by the launcher beside {@code target/rdmamon.jar} after each
 * build ({@code target/collector.jsa}, {@code target/server.jsa}; by the image build in the images) from the class list
 * in {@code src/main/cds}. The JVM maps the archived classes instead of reading, parsing and verifying them at every
 * start. The archive is only valid for the class path it was made with: the jar, then the role's library folder.
 *
 * <p>The benchmarks start the JVMs they measure with it, as the launcher does; run from class folders (the tests)
 * there is no jar and no archive.
 */
public enum ClassDataArchive {
    /** The node agent: {@code rdmamon.jar:collector-lib/*}. */
    COLLECTOR("collector", "collector-lib"),
    /** Every other command, the stream app foremost: {@code rdmamon.jar:lib/*}. */
    SERVER("server", "lib");

    private final String name;
    private final String libraryFolder;

    ClassDataArchive(String name, String libraryFolder) {
        this.name = name;
        this.libraryFolder = libraryFolder;
    }

    /** The jar this class was loaded from, when it was (the launcher), not a class folder (the tests). */
    private static Optional<Path> jar() {
        try {
            Path location = Path.of(ClassDataArchive.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return Files.isRegularFile(location) ? Optional.of(location) : Optional.empty();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The class path the launcher runs this role with and the archive was made for; empty when not run from a jar. */
    public Optional<String> classPath() {
        return jar().map(jar -> jar + File.pathSeparator + jar.resolveSibling(libraryFolder).resolve("*"));
    }

    /**
     * {@code -XX:SharedArchiveFile=...} when the launcher has made the archive since the jar was built, else nothing:
     * the JVM options that go with {@link #classPath()}.
     */
    public List<String> jvmOptions() {
        return jar().flatMap(jar -> {
            Path archive = jar.resolveSibling(name + ".jsa");
            try {
                boolean current = Files.isRegularFile(archive)
                        && Files.getLastModifiedTime(archive).compareTo(Files.getLastModifiedTime(jar)) > 0;
                return current ? Optional.of("-XX:SharedArchiveFile=" + archive) : Optional.empty();
            } catch (java.io.IOException e) {
                return Optional.empty();
            }
        }).stream().toList();
    }
}
