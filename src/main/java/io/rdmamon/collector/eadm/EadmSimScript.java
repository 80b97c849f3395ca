package io.rdmamon.collector.eadm;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.regex.Pattern;

/**
 * The simulated eadm of the demo ({@code sim/eadm-sim.sh} on the classpath): it prints {@code eadm stat -l} lines
 * computed from a simulated sysfs tree's hw_counters, so the collector's eadm path runs against a real child process.
 */
public final class EadmSimScript {
    public static final String RESOURCE = "/sim/eadm-sim.sh";
    /** The script's environment variable naming the simulated sysfs root. */
    public static final String SYSFS_ENV = "EADM_SIM_SYSFS";

    private static final Pattern WHITESPACE = Pattern.compile("\\s");

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
        String scriptPath = script.toAbsolutePath().toString();
        String rootPath = sysfsRoot.toAbsolutePath().toString();
        if (WHITESPACE.matcher(scriptPath).find() || WHITESPACE.matcher(rootPath).find()) {
            throw new IllegalArgumentException(EadmConfig.COMMAND_CONFIG + " is split on whitespace: cannot run "
                    + scriptPath + " on " + rootPath);
        }
        return "env " + SYSFS_ENV + "=" + rootPath + " " + scriptPath + " stat -d " + EadmConfig.DEVICE_PLACEHOLDER
                + " -l";
    }
}
