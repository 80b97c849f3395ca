package io.rdmamon.collector.eadm;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Settings of the {@code eadm stat} supervisor and of its cross-check against sysfs. {@link #define(ConfigDef)} adds
 * them to a role's {@link ConfigDef}, so the collector validates them with its other keys.
 */
public final class EadmConfig extends AbstractConfig {
    public static final String DEVICE_PLACEHOLDER = "{device}";

    public static final String ENABLED_CONFIG = "eadm.enabled";
    public static final boolean DEFAULT_ENABLED = true;
    public static final String ENABLED_DOC = "Run eadm for each eRDMA device: its rates cross-check the sysfs rates, "
            + "and are published for devices that only eadm can see.";

    public static final String COMMAND_CONFIG = "eadm.command";
    public static final String DEFAULT_COMMAND = "eadm stat -d " + DEVICE_PLACEHOLDER + " -l";
    public static final String COMMAND_DOC = "Command started once per device, split on whitespace (no shell, no "
            + "quoting: wrap anything fancier in a script); " + DEVICE_PLACEHOLDER + " is replaced by the device name. "
            + "Example: /opt/erdma/bin/eadm stat -d {device} -l";

    public static final String DEVICES_CONFIG = "eadm.devices";
    public static final List<String> DEFAULT_DEVICES = List.of();
    public static final String DEVICES_DOC = "Devices to run eadm for in addition to the eRDMA devices found in sysfs, "
            + "e.g. erdma_0 when sysfs shows no hw_counters for it. Empty: only the devices found in sysfs.";

    public static final String SILENCE_TIMEOUT_MS_CONFIG = "eadm.silence.timeout.ms";
    public static final long DEFAULT_SILENCE_TIMEOUT_MS = 10_000;
    public static final String SILENCE_TIMEOUT_MS_DOC = "An eadm that prints nothing (not even garbage) for this long "
            + "is taken as hung: it and its whole process tree are killed and it is restarted. eadm prints a line "
            + "about every second, so 10000 tolerates 9 missed lines.";

    public static final String BACKOFF_INITIAL_MS_CONFIG = "eadm.restart.backoff.initial.ms";
    public static final long DEFAULT_BACKOFF_INITIAL_MS = 1_000;
    public static final String BACKOFF_INITIAL_MS_DOC = "Wait before the first restart after eadm exits, is killed or "
            + "cannot start; doubled after each further failure (1000 → 2000 → 4000 ...) up to "
            + "eadm.restart.backoff.max.ms.";

    public static final String BACKOFF_MAX_MS_CONFIG = "eadm.restart.backoff.max.ms";
    public static final long DEFAULT_BACKOFF_MAX_MS = 60_000;
    public static final String BACKOFF_MAX_MS_DOC = "Longest wait between restarts (e.g. when the eadm executable is "
            + "missing: one attempt per minute with the default).";

    public static final String STABLE_RUN_MS_CONFIG = "eadm.restart.stable.ms";
    public static final long DEFAULT_STABLE_RUN_MS = 60_000;
    public static final String STABLE_RUN_MS_DOC = "A run at least this long counts as stable: the next restart waits "
            + "eadm.restart.backoff.initial.ms again instead of the doubled wait.";

    public static final String MAX_AGE_MS_CONFIG = "eadm.max.age.ms";
    public static final long DEFAULT_MAX_AGE_MS = 5_000;
    public static final String MAX_AGE_MS_DOC = "A rate read longer ago than this is stale and is neither published "
            + "nor cross-checked (unknown, never a frozen old value).";

    public static final String CROSSCHECK_TOLERANCE_CONFIG = "eadm.crosscheck.tolerance";
    public static final double DEFAULT_CROSSCHECK_TOLERANCE = 0.10;
    public static final String CROSSCHECK_TOLERANCE_DOC = "Largest accepted relative difference |sysfs − eadm| / "
            + "max(sysfs, eadm) between the two byte rates of a direction; 0.10: sysfs 1000 MiB/s and eadm 880 MiB/s "
            + "(12%) is a mismatch, 920 MiB/s (8%) is not.";

    public static final String CROSSCHECK_MIN_BYTES_PER_SEC_CONFIG = "eadm.crosscheck.min.bytes.per.sec";
    public static final double DEFAULT_CROSSCHECK_MIN_BYTES_PER_SEC = 1_048_576;
    public static final String CROSSCHECK_MIN_BYTES_PER_SEC_DOC = "A direction where both averages are below this "
            + "many bytes/s is not compared: on an idle device a few KiB/s make any ratio noise.";

    public static final String CROSSCHECK_WINDOW_CONFIG = "eadm.crosscheck.window";
    public static final int DEFAULT_CROSSCHECK_WINDOW = 10;
    public static final String CROSSCHECK_WINDOW_DOC = "Number of consecutive checks (sampling passes) averaged on "
            + "each side before comparing; a disagreement is reported once it lasts two windows. eadm's one-second windows are not aligned with the collector's passes; "
            + "with bursty all-reduce traffic single samples disagree by far more than 10% on a healthy device. "
            + "1 compares single samples.";

    private static final ConfigDef.Validator NON_BLANK = ConfigDef.LambdaValidator.with((name, value) -> {
        if (value == null || value.toString().isBlank()) {
            throw new ConfigException(name, value, "must name the eadm executable and its arguments");
        }
    }, () -> "a non-blank command line");

    public static final ConfigDef CONFIG_DEF = define(new ConfigDef());

    public EadmConfig(Map<?, ?> originals) {
        super(CONFIG_DEF, originals, false);
        if (backoffInitial().compareTo(backoffMax()) > 0) {
            throw new ConfigException(BACKOFF_INITIAL_MS_CONFIG + " (" + backoffInitial().toMillis() + ") must not "
                    + "exceed " + BACKOFF_MAX_MS_CONFIG + " (" + backoffMax().toMillis() + ")");
        }
    }

    /** Adds the eadm settings to {@code def} and returns it. */
    public static ConfigDef define(ConfigDef def) {
        return def
                .define(ENABLED_CONFIG, Type.BOOLEAN, DEFAULT_ENABLED, Importance.MEDIUM, ENABLED_DOC)
                .define(COMMAND_CONFIG, Type.STRING, DEFAULT_COMMAND, NON_BLANK, Importance.MEDIUM, COMMAND_DOC)
                .define(DEVICES_CONFIG, Type.LIST, DEFAULT_DEVICES, Importance.LOW, DEVICES_DOC)
                .define(SILENCE_TIMEOUT_MS_CONFIG, Type.LONG, DEFAULT_SILENCE_TIMEOUT_MS, ConfigDef.Range.atLeast(10),
                        Importance.LOW, SILENCE_TIMEOUT_MS_DOC)
                .define(BACKOFF_INITIAL_MS_CONFIG, Type.LONG, DEFAULT_BACKOFF_INITIAL_MS, ConfigDef.Range.atLeast(1),
                        Importance.LOW, BACKOFF_INITIAL_MS_DOC)
                .define(BACKOFF_MAX_MS_CONFIG, Type.LONG, DEFAULT_BACKOFF_MAX_MS, ConfigDef.Range.atLeast(1),
                        Importance.LOW, BACKOFF_MAX_MS_DOC)
                .define(STABLE_RUN_MS_CONFIG, Type.LONG, DEFAULT_STABLE_RUN_MS, ConfigDef.Range.atLeast(0),
                        Importance.LOW, STABLE_RUN_MS_DOC)
                .define(MAX_AGE_MS_CONFIG, Type.LONG, DEFAULT_MAX_AGE_MS, ConfigDef.Range.atLeast(1),
                        Importance.LOW, MAX_AGE_MS_DOC)
                .define(CROSSCHECK_TOLERANCE_CONFIG, Type.DOUBLE, DEFAULT_CROSSCHECK_TOLERANCE,
                        ConfigDef.Range.between(0.0, 1.0), Importance.LOW, CROSSCHECK_TOLERANCE_DOC)
                .define(CROSSCHECK_MIN_BYTES_PER_SEC_CONFIG, Type.DOUBLE, DEFAULT_CROSSCHECK_MIN_BYTES_PER_SEC,
                        ConfigDef.Range.atLeast(0.0), Importance.LOW, CROSSCHECK_MIN_BYTES_PER_SEC_DOC)
                .define(CROSSCHECK_WINDOW_CONFIG, Type.INT, DEFAULT_CROSSCHECK_WINDOW, ConfigDef.Range.atLeast(1),
                        Importance.LOW, CROSSCHECK_WINDOW_DOC);
    }

    public boolean enabled() {
        return getBoolean(ENABLED_CONFIG);
    }

    /** The command for one device, {@value #DEVICE_PLACEHOLDER} replaced in every argument. */
    public List<String> commandFor(String device) {
        return Arrays.stream(getString(COMMAND_CONFIG).trim().split("\\s+"))
                .map(arg -> arg.replace(DEVICE_PLACEHOLDER, device))
                .toList();
    }

    public List<String> devices() {
        return getList(DEVICES_CONFIG);
    }

    public Duration silenceTimeout() {
        return Duration.ofMillis(getLong(SILENCE_TIMEOUT_MS_CONFIG));
    }

    public Duration backoffInitial() {
        return Duration.ofMillis(getLong(BACKOFF_INITIAL_MS_CONFIG));
    }

    public Duration backoffMax() {
        return Duration.ofMillis(getLong(BACKOFF_MAX_MS_CONFIG));
    }

    public Duration stableRun() {
        return Duration.ofMillis(getLong(STABLE_RUN_MS_CONFIG));
    }

    public Duration maxAge() {
        return Duration.ofMillis(getLong(MAX_AGE_MS_CONFIG));
    }

    public double crossCheckTolerance() {
        return getDouble(CROSSCHECK_TOLERANCE_CONFIG);
    }

    public double crossCheckMinBytesPerSec() {
        return getDouble(CROSSCHECK_MIN_BYTES_PER_SEC_CONFIG);
    }

    public int crossCheckWindow() {
        return getInt(CROSSCHECK_WINDOW_CONFIG);
    }
}
