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

    /** Where rdmamon's classes were loaded from: the jar (the launcher) or the class folder (the tests). */
    private static Path codeSource() {
        try {
            return Path.of(ClassDataArchive.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The jar this class was loaded from, when it was (the launcher), not a class folder (the tests). */
    private static Optional<Path> jar() {
        Path location = codeSource();
        return Files.isRegularFile(location) ? Optional.of(location) : Optional.empty();
    }

    /**
     * The class path the launcher runs this role with and the archive was made for: rdmamon's jar (or, run from class
     * folders, {@code target/classes}), then the role's library folder beside it, which the build fills.
     */
    public String classPath() {
        Path location = codeSource();
        Path lib = location.resolveSibling(libraryFolder);
        if (!Files.isDirectory(lib)) {
            throw new IllegalStateException(lib + " does not exist: build with mvn package");
        }
        return location + File.pathSeparator + lib.resolve("*");
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
