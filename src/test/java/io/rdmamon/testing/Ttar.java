package io.rdmamon.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Unpacks a ttar text archive (the fake-sysfs format of prometheus/procfs and node_exporter): {@code Directory: P}
 * makes a folder; {@code Path: P}, {@code Lines: N}, N lines of content makes a file (a last line ending in
 * {@code EOF} means no trailing newline; {@code NULLBYTE} stands for a NUL); {@code Path: P}, {@code SymlinkTo: T}
 * makes a link; {@code Mode:} lines and {@code #} separators are skipped.
 */
public final class Ttar {
    private Ttar() {
    }

    /** Unpacks a test resource (e.g. {@code /fixtures/procfs-infiniband.ttar}) under {@code destination}. */
    public static Path unpackResource(String resource, Path destination) {
        try (InputStream in = Ttar.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource " + resource);
            }
            unpack(new String(in.readAllBytes(), StandardCharsets.UTF_8), destination);
            return destination;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void unpack(String archive, Path destination) throws IOException {
        List<String> lines = archive.lines().toList();
        int i = 0;
        while (i < lines.size()) {
            String line = lines.get(i++);
            if (line.startsWith("Directory: ")) {
                Files.createDirectories(target(destination, line.substring("Directory: ".length())));
            } else if (line.startsWith("Path: ")) {
                Path file = target(destination, line.substring("Path: ".length()));
                Files.createDirectories(file.getParent());
                String next = lines.get(i++);
                if (next.startsWith("SymlinkTo: ")) {
                    Files.createSymbolicLink(file, Path.of(next.substring("SymlinkTo: ".length())));
                } else if (next.startsWith("Lines: ")) {
                    int count = Integer.parseInt(next.substring("Lines: ".length()).trim());
                    StringBuilder content = new StringBuilder();
                    for (int n = 0; n < count; n++) {
                        content.append(lines.get(i++).replace("NULLBYTE", "\0")).append('\n');
                    }
                    String text = content.toString();
                    if (text.endsWith("EOF\n")) {
                        text = text.substring(0, text.length() - "EOF\n".length());
                    }
                    Files.writeString(file, text);
                } else {
                    throw new IllegalArgumentException("ttar: expected Lines: or SymlinkTo: after " + line);
                }
            } else if (!line.isEmpty() && !line.startsWith("#") && !line.startsWith("Mode: ")) {
                throw new IllegalArgumentException("ttar: unexpected line " + (i) + ": " + line);
            }
        }
    }

    private static Path target(Path destination, String relative) {
        Path target = destination.resolve(relative).normalize();
        if (!target.startsWith(destination)) {
            throw new IllegalArgumentException("ttar path escapes the destination: " + relative);
        }
        return target;
    }
}
