package io.rdmamon.sim;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * File operations of the simulated tree. Every write goes to a scratch file first and is renamed over the target, so
 * a concurrent reader opens either the old file or the new one, never a truncated or half-written one. The scratch
 * folder must be on the same filesystem as the tree (a rename is atomic only there) and outside {@code class/}, so that
 * no listing ever shows a scratch file. Not thread-safe: {@link SysfsTreeWriter} serialises the calls.
 *
 * <p>On ext4 a rename over an existing file flushes the new data (auto_da_alloc): a tree on tmpfs writes ~10x faster.
 */
final class SimFiles {
    private final Path scratch;
    private final boolean inPlace;
    private final Set<Path> knownDirs = new HashSet<>();
    private long scratchFiles;

    /** @param inPlace overwrite existing files in place rather than rename over them (see {@link #write}) */
    SimFiles(Path scratch, boolean inPlace) {
        this.scratch = scratch;
        this.inPlace = inPlace;
        createDirectories(scratch);
    }

    /**
     * Writes a file: renamed into place, or, in the in-place mode, an existing file overwritten from offset 0 and cut
     * to length, as a reader that keeps it open sees sysfs values change (a concurrent read may see a torn value).
     */
    void write(Path target, String content) {
        try {
            if (knownDirs.add(target.getParent())) {
                createDirectories(target.getParent());
            }
            if (inPlace && Files.exists(target)) {
                overwrite(target, content);
                return;
            }
            Path temp = scratch.resolve("w" + scratchFiles++);
            Files.writeString(temp, content);
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target, e);
        }
    }

    private static void overwrite(Path target, String content) throws IOException {
        byte[] bytes = content.getBytes(StandardCharsets.US_ASCII);
        try (FileChannel channel = FileChannel.open(target, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(bytes), 0);
            channel.truncate(bytes.length);
        }
    }

    /** A relative symbolic link, as sysfs links {@code class/*} entries into {@code devices/}. */
    static void link(Path link, String target) {
        try {
            Files.createSymbolicLink(link, Path.of(target));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot link " + link + " to " + target, e);
        }
    }

    static void createDirectories(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
    }

    /** Removes a link and then the folder it pointed to, deepest entries first. */
    void removeLinkedTree(Path link, Path dir) {
        try {
            Files.deleteIfExists(link);
            List<Path> paths = new ArrayList<>();
            try (Stream<Path> walk = Files.walk(dir)) {
                walk.sorted(Comparator.reverseOrder()).forEach(paths::add);
            }
            for (Path path : paths) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + dir, e);
        }
        knownDirs.removeIf(known -> known.startsWith(dir));
    }
}
