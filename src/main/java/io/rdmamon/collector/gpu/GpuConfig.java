package io.rdmamon.collector.gpu;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Settings of the GPU source ({@code nvidia-smi}). {@link #define(ConfigDef)} adds them to the collector's
 * {@link ConfigDef}, so they are validated and documented with its other keys.
 */
public final class GpuConfig extends AbstractConfig {
    public static final String AUTO = "auto";

    public static final String ENABLED_CONFIG = "collector.gpu.enabled";
    public static final String ENABLED_DOC = "Publish one record per GPU per interval to the gpu-samples topic, read "
            + "from nvidia-smi. auto: on when nvidia-smi runs and lists a GPU; on a node without the NVIDIA driver (no "
            + "nvidia-smi, or 'NVIDIA-SMI has failed', or no GPU) the source is off after one log line and the RDMA "
            + "and host samples go on. true: as auto, but a missing nvidia-smi or driver is retried with backoff "
            + "instead of turning the source off. false: never run nvidia-smi.";

    public static final String COMMAND_CONFIG = "collector.gpu.command";
    public static final String DEFAULT_COMMAND = "nvidia-smi";
    public static final String COMMAND_DOC = "The nvidia-smi executable, a name looked up in PATH or a path (e.g. "
            + "/usr/local/nvidia/bin/nvidia-smi where the NVIDIA container runtime mounts the driver's tools). The "
            + "collector adds the query arguments itself.";

    public static final String READ_INTERVAL_MS_CONFIG = "collector.gpu.read.interval.ms";
    public static final long DEFAULT_READ_INTERVAL_MS = 200;
    public static final String READ_INTERVAL_MS_DOC = "How often nvidia-smi reads the GPUs (its -lms). A GPU's record "
            + "holds the mean of the readings taken within the collector's interval, so that a 1 s record reflects "
            + "the whole second: NVML's utilization is the share of its own sample period (1/6 s to 1 s depending on "
            + "the GPU) in which a kernel ran, and power and SM clock are instantaneous. 200: 5 readings per second.";

    public static final String PROCESSES_CONFIG = "collector.gpu.processes";
    public static final String PROCESSES_DOC = "Count the compute processes on each GPU (nvidia-smi "
            + "--query-compute-apps, run once per collector interval). auto: only where the collector sees the "
            + "host's processes (its own PID namespace is the host's: run on the host, or hostPID: true in the "
            + "DaemonSet); a container with a PID namespace of its own is shown no process of other containers, so "
            + "its count would read 0 while a job runs: processes is null there. true: always count (a collector in "
            + "the training container, or a pod with shareProcessNamespace); false: processes is always null.";

    public static final String PROCESS_ACTIVITY_CONFIG = "collector.gpu.process.activity";
    public static final String PROCESS_ACTIVITY_DOC = "Where processes are counted, also publish what the GPU's "
            + "compute processes did over each interval (processCpuCores, processReadBytesPerSec, "
            + "processWriteBytesPerSec, processStates): their process trees' CPU time, rchar/wchar and states from "
            + "collector.gpu.proc.root. Reading another user's /proc/<pid>/io needs CAP_SYS_PTRACE (or the same uid); "
            + "without it the byte rates are null and the rest is published.";
    public static final String PROC_ROOT_CONFIG = "collector.gpu.proc.root";
    public static final String PROC_ROOT_DOC = "The host's /proc, where the GPU processes' activity is read (the "
            + "collector's own /proc with hostPID: true).";

    public static final String PROCESSES_TIMEOUT_MS_CONFIG = "collector.gpu.processes.timeout.ms";
    public static final long DEFAULT_PROCESSES_TIMEOUT_MS = 5_000;
    public static final String PROCESSES_TIMEOUT_MS_DOC = "Deadline of one process count; an nvidia-smi still running "
            + "then is killed and counted (rdmamon.gpu.processes.failures). A count older than three collector "
            + "intervals is not published (processes null).";

    public static final String SILENCE_TIMEOUT_MS_CONFIG = "collector.gpu.silence.timeout.ms";
    public static final long DEFAULT_SILENCE_TIMEOUT_MS = 10_000;
    public static final String SILENCE_TIMEOUT_MS_DOC = "An nvidia-smi that prints nothing for this long is taken as "
            + "hung (a GPU fallen off the bus can block NVML): it is killed and restarted. It prints a line per GPU "
            + "every collector.gpu.read.interval.ms.";

    public static final String BACKOFF_INITIAL_MS_CONFIG = "collector.gpu.restart.backoff.initial.ms";
    public static final long DEFAULT_BACKOFF_INITIAL_MS = 1_000;
    public static final String BACKOFF_INITIAL_MS_DOC = "Wait before the first restart after nvidia-smi exits, is "
            + "killed or cannot start; doubled after each further failure up to "
            + "collector.gpu.restart.backoff.max.ms. A run that lasted longer than the maximum starts again from this.";

    public static final String BACKOFF_MAX_MS_CONFIG = "collector.gpu.restart.backoff.max.ms";
    public static final long DEFAULT_BACKOFF_MAX_MS = 60_000;
    public static final String BACKOFF_MAX_MS_DOC = "Longest wait between restarts of nvidia-smi.";

    public static final ConfigDef CONFIG_DEF = define(new ConfigDef());

    public GpuConfig(Map<?, ?> originals) {
        super(CONFIG_DEF, originals, false);
        if (backoffInitial().compareTo(backoffMax()) > 0) {
            throw new ConfigException(BACKOFF_INITIAL_MS_CONFIG + " (" + backoffInitial().toMillis() + ") must not "
                    + "exceed " + BACKOFF_MAX_MS_CONFIG + " (" + backoffMax().toMillis() + ")");
        }
    }

    /** Adds the GPU source's settings to {@code def} and returns it. */
    public static ConfigDef define(ConfigDef def) {
        ConfigDef.Validator tristate = ConfigDef.ValidString.in(AUTO, "true", "false");
        return def
                .define(ENABLED_CONFIG, Type.STRING, AUTO, tristate, Importance.MEDIUM, ENABLED_DOC)
                .define(COMMAND_CONFIG, Type.STRING, DEFAULT_COMMAND, new ConfigDef.NonEmptyString(),
                        Importance.MEDIUM, COMMAND_DOC)
                .define(READ_INTERVAL_MS_CONFIG, Type.LONG, DEFAULT_READ_INTERVAL_MS,
                        ConfigDef.Range.between(50L, 60_000L), Importance.LOW, READ_INTERVAL_MS_DOC)
                .define(PROCESSES_CONFIG, Type.STRING, AUTO, tristate, Importance.LOW, PROCESSES_DOC)
                .define(PROCESS_ACTIVITY_CONFIG, Type.BOOLEAN, true, Importance.LOW, PROCESS_ACTIVITY_DOC)
                .define(PROC_ROOT_CONFIG, Type.STRING, "/proc", new ConfigDef.NonEmptyString(), Importance.LOW,
                        PROC_ROOT_DOC)
                .define(PROCESSES_TIMEOUT_MS_CONFIG, Type.LONG, DEFAULT_PROCESSES_TIMEOUT_MS,
                        ConfigDef.Range.atLeast(10L), Importance.LOW, PROCESSES_TIMEOUT_MS_DOC)
                .define(SILENCE_TIMEOUT_MS_CONFIG, Type.LONG, DEFAULT_SILENCE_TIMEOUT_MS, ConfigDef.Range.atLeast(10L),
                        Importance.LOW, SILENCE_TIMEOUT_MS_DOC)
                .define(BACKOFF_INITIAL_MS_CONFIG, Type.LONG, DEFAULT_BACKOFF_INITIAL_MS, ConfigDef.Range.atLeast(1L),
                        Importance.LOW, BACKOFF_INITIAL_MS_DOC)
                .define(BACKOFF_MAX_MS_CONFIG, Type.LONG, DEFAULT_BACKOFF_MAX_MS, ConfigDef.Range.atLeast(1L),
                        Importance.LOW, BACKOFF_MAX_MS_DOC);
    }

    /** False only for {@code collector.gpu.enabled=false}. */
    public boolean enabled() {
        return !"false".equals(getString(ENABLED_CONFIG));
    }

    /** {@code collector.gpu.enabled=auto}: no driver turns the source off instead of retrying. */
    public boolean offWithoutDriver() {
        return AUTO.equals(getString(ENABLED_CONFIG));
    }

    public String executable() {
        return getString(COMMAND_CONFIG).trim();
    }

    public Duration readInterval() {
        return Duration.ofMillis(getLong(READ_INTERVAL_MS_CONFIG));
    }

    /** Whether to count processes, given whether this collector sees the host's processes. */
    public boolean countProcesses(boolean seesHostProcesses) {
        return switch (getString(PROCESSES_CONFIG)) {
            case "true" -> true;
            case "false" -> false;
            default -> seesHostProcesses;
        };
    }

    /** Whether to publish the GPU processes' activity where processes are counted. */
    public boolean processActivity() {
        return getBoolean(PROCESS_ACTIVITY_CONFIG);
    }

    public java.nio.file.Path procRoot() {
        return java.nio.file.Path.of(getString(PROC_ROOT_CONFIG).trim());
    }

    public Duration processesTimeout() {
        return Duration.ofMillis(getLong(PROCESSES_TIMEOUT_MS_CONFIG));
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

    /** Arguments are split on whitespace, as {@code eadm.command}: a path with spaces needs a wrapper script. */
    List<String> command(String... arguments) {
        List<String> command = new ArrayList<>(Arrays.asList(executable().split("\\s+")));
        command.addAll(Arrays.asList(arguments));
        return command;
    }
}
