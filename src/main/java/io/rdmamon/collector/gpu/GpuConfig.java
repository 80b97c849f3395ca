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
 * Settings of the GPU source (NVML or {@code nvidia-smi}). {@link #define(ConfigDef)} adds them to the collector's
 * {@link ConfigDef}, so they are validated and documented with its other keys.
 */
public final class GpuConfig extends AbstractConfig {
    public static final String AUTO = "auto";

    public static final String ENABLED_CONFIG = "collector.gpu.enabled";
    public static final String ENABLED_DOC = "Publish one record per GPU per interval to the gpu-samples topic. auto: "
            + "on; on a node without the NVIDIA driver or GPU one log line says so and the driver is looked for again "
            + "with backoff (up to collector.gpu.restart.backoff.max.ms), so a driver loaded after the collector "
            + "started is picked up; RDMA and host samples never wait for it. true: the same, the missing driver "
            + "logged as a warning. false: never read the GPUs.";

    public static final String READER_CONFIG = "collector.gpu.reader";
    public static final String NVML = "nvml";
    public static final String NVIDIA_SMI = "nvidia-smi";
    public static final String READER_DOC = "What reads the GPUs. nvml: NVML (libnvidia-ml.so.1, the driver's "
            + "library) in the collector's process through JNA, no process per reading. nvidia-smi: a streaming "
            + "nvidia-smi and one nvidia-smi per interval for the process counts. auto: NVML, and nvidia-smi where "
            + "the library (or JNA's native part) cannot be loaded at all.";

    public static final String NVML_LIBRARY_CONFIG = "collector.gpu.nvml.library";
    public static final String DEFAULT_NVML_LIBRARY = "libnvidia-ml.so.1";
    public static final String NVML_LIBRARY_DOC = "NVML's library: a name the dynamic linker finds (the NVIDIA "
            + "container runtime mounts it into the container and its folder into the linker's cache) or a path.";

    public static final String COMMAND_CONFIG = "collector.gpu.command";
    public static final String DEFAULT_COMMAND = "nvidia-smi";
    public static final String COMMAND_DOC = "The nvidia-smi executable, a name looked up in PATH or a path (e.g. "
            + "/usr/local/nvidia/bin/nvidia-smi where the NVIDIA container runtime mounts the driver's tools). The "
            + "collector adds the query arguments itself.";

    public static final String READ_INTERVAL_MS_CONFIG = "collector.gpu.read.interval.ms";
    public static final long DEFAULT_READ_INTERVAL_MS = 200;
    public static final String READ_INTERVAL_MS_DOC = "How often NVML or nvidia-smi reads the GPUs (nvidia-smi's -lms). A GPU's record "
            + "holds the mean of the readings taken within the collector's interval, so that a 1 s record reflects "
            + "the whole second: NVML's utilization is the share of its own sample period (1/6 s to 1 s depending on "
            + "the GPU) in which a kernel ran, and power and SM clock are instantaneous. 200: 5 readings per second.";

    public static final String PROCESSES_CONFIG = "collector.gpu.processes";
    public static final String PROCESSES_DOC = "Count the compute processes on each GPU, once per collector interval "
            + "(NVML, or one nvidia-smi --query-compute-apps). auto: only where the collector sees the "
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
            + "then is killed and counted (rdmamon.gpu.processes.failures); no other starts until it has exited. A "
            + "count not read within the sample's interval is not published (processes null).";

    public static final String SILENCE_TIMEOUT_MS_CONFIG = "collector.gpu.silence.timeout.ms";
    public static final long DEFAULT_SILENCE_TIMEOUT_MS = 10_000;
    public static final String SILENCE_TIMEOUT_MS_DOC = "An NVML call, an nvidia-smi stream that prints nothing, or "
            + "a process count outstanding this long is taken as stuck (a GPU fallen off the bus can block NVML in "
            + "the kernel): counted in rdmamon.gpu.stuck, logged once, the node's GPU samples stop until it returns; "
            + "nvidia-smi is killed and started again once it has exited. Nothing else is started meanwhile.";

    public static final String BACKOFF_INITIAL_MS_CONFIG = "collector.gpu.restart.backoff.initial.ms";
    public static final long DEFAULT_BACKOFF_INITIAL_MS = 1_000;
    public static final String BACKOFF_INITIAL_MS_DOC = "Wait before the first retry after NVML cannot be opened or "
            + "a call of it hung, or nvidia-smi exits, is killed or cannot start; doubled after each further failure up to "
            + "collector.gpu.restart.backoff.max.ms. A run that lasted longer than the maximum starts again from this.";

    public static final String BACKOFF_MAX_MS_CONFIG = "collector.gpu.restart.backoff.max.ms";
    public static final long DEFAULT_BACKOFF_MAX_MS = 60_000;
    public static final String BACKOFF_MAX_MS_DOC = "Longest wait between retries of NVML or restarts of nvidia-smi.";

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
                .define(READER_CONFIG, Type.STRING, AUTO, ConfigDef.ValidString.in(AUTO, NVML, NVIDIA_SMI),
                        Importance.MEDIUM, READER_DOC)
                .define(NVML_LIBRARY_CONFIG, Type.STRING, DEFAULT_NVML_LIBRARY, new ConfigDef.NonEmptyString(),
                        Importance.LOW, NVML_LIBRARY_DOC)
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

    /** {@code collector.gpu.enabled=true}: a missing driver is a warning, not news. */
    public boolean required() {
        return "true".equals(getString(ENABLED_CONFIG));
    }

    /** auto, nvml or nvidia-smi. */
    public String reader() {
        return getString(READER_CONFIG);
    }

    public String nvmlLibrary() {
        return getString(NVML_LIBRARY_CONFIG).trim();
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
