package io.rdmamon.collector.eadm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Fake {@code eadm} executables for tests: bash scripts called as {@code <script> stat -d <device> -l}, with {@code
 * $3} the device. Each script appends its pid (and those of its background children) to {@code <dir>/pids}, so a
 * test can check that nothing survives.
 */
final class FakeEadm {
    private final Path dir;

    FakeEadm(Path dir) {
        this.dir = dir;
    }

    /** Writes {@code <dir>/<name>} with {@code body} after a preamble that records the pid; returns its path. */
    Path script(String name, String body) {
        Path script = dir.resolve(name);
        try {
            Files.writeString(script, "#!/usr/bin/env bash\necho $$ >> '" + pidFile() + "'\n" + body + "\n");
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return script;
    }

    /** A command line for {@link EadmConfig#COMMAND_CONFIG} that runs {@code script}. */
    static String command(Path script) {
        return script + " stat -d " + EadmConfig.DEVICE_PLACEHOLDER + " -l";
    }

    Path pidFile() {
        return dir.resolve("pids");
    }

    /** Every pid a fake script recorded so far. */
    List<Long> pids() {
        try {
            return Files.exists(pidFile())
                    ? Files.readAllLines(pidFile()).stream().filter(s -> !s.isBlank()).map(Long::parseLong).toList()
                    : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Alive and not a zombie: an orphan killed here may wait as a zombie for a reaper that never comes. */
    static boolean running(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (IOException e) {
            return false;
        }
    }

    static Map<String, Object> config(String command, Object... overrides) {
        HashMap<String, Object> props = new HashMap<>(Map.of(
                EadmConfig.COMMAND_CONFIG, command,
                EadmConfig.SILENCE_TIMEOUT_MS_CONFIG, "5000",
                EadmConfig.BACKOFF_INITIAL_MS_CONFIG, "50",
                EadmConfig.BACKOFF_MAX_MS_CONFIG, "400",
                EadmConfig.MAX_AGE_MS_CONFIG, "5000"));
        for (int i = 0; i < overrides.length; i += 2) {
            props.put((String) overrides[i], overrides[i + 1]);
        }
        return props;
    }
}
