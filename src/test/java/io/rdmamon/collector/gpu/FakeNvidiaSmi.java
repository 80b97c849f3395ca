package io.rdmamon.collector.gpu;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Stand-ins for {@code nvidia-smi}: bash scripts that print recorded real output (src/test/resources/gpu) the way
 * nvidia-smi does, called with the collector's real arguments. Each records its arguments in {@code <dir>/calls} and
 * its pid in {@code <dir>/pids}.
 */
public final class FakeNvidiaSmi {
    /** nvidia-smi's answer on a node without a working driver, verbatim; it exits with 9. */
    public static final String NO_DRIVER = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
            + "driver. Make sure that the latest NVIDIA driver is installed and running.";

    private final Path dir;

    public FakeNvidiaSmi(Path dir) {
        this.dir = dir;
    }

    /** A recorded file of src/test/resources/gpu. */
    public static Path recorded(String name) {
        try {
            return Path.of(FakeNvidiaSmi.class.getResource("/gpu/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * An nvidia-smi that streams {@code readings} (lines of {@code gpus} GPUs per reading, every 100 ms, over and over)
     * and answers the compute-apps query with {@code apps} ({@code null}: no process); {@code afterReadings}, when
     * not null, is run after the file was printed once (e.g. {@code exit 1}, {@code sleep 600}).
     */
    public Path streaming(Path readings, int gpus, Path apps, String afterReadings) {
        return script("nvidia-smi", """
                case "$*" in *--query-compute-apps*) %s; exit 0 ;; esac
                while true; do
                  n=0
                  while IFS= read -r line; do
                    echo "$line"; n=$((n + 1))
                    if [ $((n %% %d)) -eq 0 ]; then sleep 0.1; fi
                  done < '%s'
                  %s
                done""".formatted(apps == null ? "true" : "cat '" + apps + "'", gpus, readings,
                afterReadings == null ? "" : afterReadings));
    }

    /** Writes {@code <dir>/<name>} running {@code body} after recording its arguments and pid; returns its path. */
    public Path script(String name, String body) {
        Path script = dir.resolve(name);
        try {
            Files.writeString(script, "#!/usr/bin/env bash\necho \"$*\" >> '" + dir.resolve("calls") + "'\necho $$ >> '"
                    + dir.resolve("pids") + "'\n" + body + "\n");
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return script;
    }

    /** The argument lines of every call so far. */
    public List<String> calls() {
        return lines(dir.resolve("calls"));
    }

    public List<Long> pids() {
        return lines(dir.resolve("pids")).stream().map(Long::parseLong).toList();
    }

    private static List<String> lines(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file).stream().filter(s -> !s.isBlank()).toList()
                    : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** GPU settings reading with nvidia-smi {@code command}, restarting fast, with {@code overrides} (key, value, ...). */
    public static Map<String, Object> config(Path command, Object... overrides) {
        Map<String, Object> props = new HashMap<>(Map.of(
                GpuConfig.READER_CONFIG, GpuConfig.NVIDIA_SMI,
                GpuConfig.COMMAND_CONFIG, command.toString(),
                GpuConfig.BACKOFF_INITIAL_MS_CONFIG, "50",
                GpuConfig.BACKOFF_MAX_MS_CONFIG, "400"));
        for (int i = 0; i < overrides.length; i += 2) {
            props.put((String) overrides[i], overrides[i + 1]);
        }
        return props;
    }
}
