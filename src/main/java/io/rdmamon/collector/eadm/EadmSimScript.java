package io.rdmamon.collector.eadm;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The simulated eadm of the demo ({@code sim/eadm-sim.sh} on the classpath): it prints {@code eadm stat -l} lines
 * computed from a simulated sysfs tree's hw_counters, so the collector's eadm path runs against a real child process.
 */
public final class EadmSimScript {
    public static final String RESOURCE = "/sim/eadm-sim.sh";
    /** The script's environment variable naming the simulated sysfs root. */
    public static final String SYSFS_ENV = "EADM_SIM_SYSFS";

    private EadmSimScript() {
    }

    /** Copies the script into {@code dir} as an executable file and returns its path. */
    public static Path install(Path dir) {
        try (InputStream in = EadmSimScript.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not on the classpath");
            }
            Files.createDirectories(dir);
            Path script = dir.resolve("eadm-sim.sh");
            Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
            return script;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot install the simulated eadm into " + dir, e);
        }
    }

    /**
     * The {@value EadmConfig#COMMAND_CONFIG} value that runs {@code script} against {@code sysfsRoot}, e.g. {@code env
     * EADM_SIM_SYSFS=/tmp/node-1/sys /tmp/sim/eadm-sim.sh stat -d {device} -l}. The command is split on whitespace:
     * neither path may contain any.
     */
    public static String command(Path script, Path sysfsRoot) {
        String command = "env " + SYSFS_ENV + "=" + sysfsRoot.toAbsolutePath() + " " + script.toAbsolutePath()
                + " stat -d " + EadmConfig.DEVICE_PLACEHOLDER + " -l";
        if (script.toAbsolutePath().toString().matches(".*\\s.*") || sysfsRoot.toAbsolutePath().toString().matches(".*\\s.*")) {
            throw new IllegalArgumentException("paths with whitespace cannot go into " + EadmConfig.COMMAND_CONFIG
                    + ": " + command);
        }
        return command;
    }
}
