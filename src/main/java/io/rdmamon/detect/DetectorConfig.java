package io.rdmamon.detect;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.rdmamon.model.CounterClass;

/**
 * Every detector threshold: a dotted key, its default and a doc with a worked example, defined once here and read
 * through typed accessors. {@link #define} adds the keys to the stream app's {@link ConfigDef}.
 */
public final class DetectorConfig {
    public static final String STALL_MIN_QUIET_CONFIG = "streams.stall.min.quiet.ms";
    public static final long DEFAULT_STALL_MIN_QUIET = 5_000;
    private static final String STALL_MIN_QUIET_DOC = "Shortest job-wide quiet reported as STALLED_SYNC. A job whose "
            + "normal gaps are sub-second is flagged this long after its last traffic (5 s: detectedAt 5.5-7 s "
            + "after the hang at 1 Hz sampling, on real NCCL traces).";
    public static final String STALL_MAX_QUIET_CONFIG = "streams.stall.max.quiet.ms";
    public static final long DEFAULT_STALL_MAX_QUIET = 600_000;
    private static final String STALL_MAX_QUIET_DOC = "Upper bound of the learned threshold: whatever a job's gaps, a "
            + "quiet this long (10 min) is a stall unless excused by a checkpoint hint.";
    public static final String STALL_QUIET_PORTS_FRACTION_CONFIG = "streams.stall.quiet.ports.fraction";
    public static final double DEFAULT_STALL_QUIET_PORTS_FRACTION = 0.9;
    private static final String STALL_QUIET_PORTS_FRACTION_DOC = "The job is quiet in a second when at least this "
            + "fraction of its reporting ports carry no traffic: with 0.9, 2 active ports out of 16 still count as "
            + "traffic, 1 does not.";
    public static final String STALL_QUIET_BYTES_CONFIG = "streams.stall.quiet.bytes.per.sec";
    public static final double DEFAULT_STALL_QUIET_BYTES = 65_536;
    private static final String STALL_QUIET_BYTES_DOC = "A port below this tx+rx rate is quiet (absolute floor).";
    public static final String STALL_QUIET_BASELINE_FRACTION_CONFIG = "streams.stall.quiet.baseline.fraction";
    public static final double DEFAULT_STALL_QUIET_BASELINE_FRACTION = 0.01;
    private static final String STALL_QUIET_BASELINE_FRACTION_DOC = "A port below this fraction of the job's usual "
            + "per-port rate is quiet too: 0.01 of 2 GB/s is 20 MB/s. Evaluation phases with lower but real traffic "
            + "stay above it.";
    public static final String STALL_SOCKET_QUIET_FRACTION_CONFIG = "streams.stall.socket.quiet.fraction";
    public static final double DEFAULT_STALL_SOCKET_QUIET_FRACTION = 0.1;
    private static final String STALL_SOCKET_QUIET_FRACTION_DOC = "For a job meant to run over sockets "
            + "(rdmamon.io/transport=socket): its port is the host interface, which carries other traffic too (data "
            + "loading, logs, metrics), so the port is quiet below this fraction of the job's usual per-port rate: "
            + "0.1 of 150 MB/s is 15 MB/s, above a few MB/s of other traffic. An evaluation phase below it counts as a "
            + "quiet of the job's (learned like a pause).";
    public static final String STALL_WARMUP_CONFIG = "streams.stall.warmup.ms";
    public static final long DEFAULT_STALL_WARMUP = 60_000;
    private static final String STALL_WARMUP_DOC = "Job start: no stall is reported until this long after the job's "
            + "first traffic (image pull, NCCL init, data loading come before).";
    public static final String STALL_WARMUP_ACTIVE_CONFIG = "streams.stall.warmup.active.ms";
    public static final long DEFAULT_STALL_WARMUP_ACTIVE = 30_000;
    private static final String STALL_WARMUP_ACTIVE_DOC = "...and until the job has shown this much time with "
            + "traffic, so a short NCCL-init burst followed by minutes of setup does not count as a pattern.";
    public static final String STALL_HOST_RISE_FACTOR_CONFIG = "streams.stall.host.rise.factor";
    public static final double DEFAULT_STALL_HOST_RISE_FACTOR = 2.0;
    private static final String STALL_HOST_RISE_FACTOR_DOC = "Checkpoint hint: while RDMA is quiet, a host interface "
            + "of the job's nodes above this multiple of its usual rate (and above "
            + "streams.stall.host.min.bytes.per.sec) means storage/TCP work, not a hang; the quiet clock restarts "
            + "when the host traffic falls.";
    public static final String STALL_HOST_MIN_BYTES_CONFIG = "streams.stall.host.min.bytes.per.sec";
    public static final double DEFAULT_STALL_HOST_MIN_BYTES = 10 * 1024 * 1024;
    private static final String STALL_HOST_MIN_BYTES_DOC = "Smallest host-interface rate (tx+rx) that counts as a "
            + "checkpoint hint.";
    public static final String STALL_PAUSE_MULTIPLIER_CONFIG = "streams.stall.pause.multiplier";
    public static final double DEFAULT_STALL_PAUSE_MULTIPLIER = 1.7;
    private static final String STALL_PAUSE_MULTIPLIER_DOC = "A quiet of up to this multiple of the longest quiet "
            + "the job resumed from by itself stays silent (a gap between bursts, an evaluation pass, a checkpoint, a "
            + "data-loader stall: all alike), longer is a stall: after stalls of up to 9 s a hang is flagged at about "
            + "16 s. Only a quiet longer than every earlier one of the job can fire.";
    public static final String STALL_STALE_CONFIG = "streams.stall.stale.ms";
    public static final long DEFAULT_STALL_STALE = 5_000;
    private static final String STALL_STALE_DOC = "A node of the job whose samples are this much older than the "
            + "job's newest sample went silent; when that happened around the quiet, no stall is reported "
            + "(missing samples are unknown, and COLLECTOR_SILENT reports the node).";
    public static final String STALL_LATENESS_CONFIG = "streams.stall.lateness.ms";
    public static final long DEFAULT_STALL_LATENESS = 2_000;
    private static final String STALL_LATENESS_DOC = "Samples of a job's ports up to this much older than the job's "
            + "newest still count for STALLED_SYNC (a busy broker delivers some 1.5 s late). A second's verdict (the "
            + "job had traffic, or was quiet), and the quiets learned from it, are final once the job's newest sample "
            + "is this far past it, so the same samples in any order within it teach the same quiets; a sample later "
            + "still is dropped. At most streams.stall.min.quiet.ms less 1 s: a quiet the job resumed from is learned "
            + "this long and 1 s after it ended, before the next quiet can reach the shortest threshold.";
    public static final String STALL_GPU_BUSY_CONFIG = "streams.stall.gpu.busy.percent";
    public static final double DEFAULT_STALL_GPU_BUSY = 90;
    private static final String STALL_GPU_BUSY_DOC = "GPU evidence (rdma.gpu-samples): a GPU at or above this "
            + "utilization with no memory traffic (streams.stall.gpu.memory.percent) is waiting inside a collective: "
            + "its NCCL kernel spins. Training runs at 99-100 % with 0-5 % memory too, so this counts only while the "
            + "job's network is quiet.";
    public static final String STALL_GPU_MEMORY_CONFIG = "streams.stall.gpu.memory.percent";
    public static final double DEFAULT_STALL_GPU_MEMORY = 2;
    private static final String STALL_GPU_MEMORY_DOC = "...and at or below this memory utilization (a hang inside "
            + "a collective reads 0 %; evaluation and checkpoints read 3-43 %).";
    public static final String STALL_GPU_WAIT_CONFIG = "streams.stall.gpu.wait.ms";
    public static final long DEFAULT_STALL_GPU_WAIT = 3_000;
    private static final String STALL_GPU_WAIT_DOC = "Every GPU of the job waiting in a collective this long within "
            + "a network quiet is STALLED_SYNC at once, whatever quiets the job resumed from before (a rank-0-only "
            + "evaluation or checkpoint leaves rank 0 outside the collective, so it never fires on those). So is "
            + "some GPUs waiting so this long while each other GPU of the job has no compute process (its rank "
            + "died), is lost (readings are errors) or has processes without progress "
            + "(streams.stall.gpu.process.cpu.cores): the alert names those ranks.";
    public static final String STALL_GPU_GONE_CONFIG = "streams.stall.gpu.gone.ms";
    public static final long DEFAULT_STALL_GPU_GONE = 2_000;
    private static final String STALL_GPU_GONE_DOC = "Every GPU the job used showing no compute process this long "
            + "while the network is quiet and the job's record still says Running: its ranks exited (a command "
            + "chained after training such as an upload, a second run, an elastic restart in the same pods, or a crash "
            + "nothing restarted). There is no collective left to stall: STALLED_SYNC's learned rule is held until "
            + "the job's traffic resumes (the GPU rules still fire on what follows), and GPUs that stay empty are "
            + "GPU_IDLE after streams.gpu.idle.after.ms.";
    public static final String STALL_GPU_PROCESS_CPU_CONFIG = "streams.stall.gpu.process.cpu.cores";
    public static final double DEFAULT_STALL_GPU_PROCESS_CPU = 0.05;
    private static final String STALL_GPU_PROCESS_CPU_DOC = "A GPU's compute processes (their trees) below this CPU, "
            + "with no byte read or written through system calls and no memory traffic on the GPU, make no progress "
            + "(a process seen only stopped, state T, neither); while every other GPU of the job waits in a "
            + "collective for streams.stall.gpu.wait.ms of a network quiet, that is STALLED_SYNC naming the stuck "
            + "ranks. Measured on an H200: stopped 0.01 cores, blocked on a hung mount 0.02, a starving data loader "
            + "0.06 cores but 12.7 MB/s read (at work: its bytes tell), a rank-0 checkpoint 0.72 cores and 551 MB/s "
            + "written. Without the byte counters (collectors that cannot read /proc/<pid>/io) the rule is off.";
    public static final String GPU_IDLE_AFTER_CONFIG = "streams.gpu.idle.after.ms";
    public static final long DEFAULT_GPU_IDLE_AFTER = 300_000;
    private static final String GPU_IDLE_AFTER_DOC = "GPU_IDLE (a warning): every GPU a Running job used without a "
            + "compute process this long (5 min): its ranks exited and nothing followed on its GPUs (a wrapper script "
            + "still running, a crash nothing restarted, an upload longer than this). Chained runs, elastic restarts "
            + "and shorter uploads start processes again within it and raise nothing. Resolves when a process is back "
            + "on one of the job's GPUs or the job ends.";
    public static final String GPU_LOST_AFTER_CONFIG = "streams.gpu.lost.after.ms";
    public static final long DEFAULT_GPU_LOST_AFTER = 2_000;
    private static final String GPU_LOST_AFTER_DOC = "GPU_LOST: a GPU whose readings have been errors this long "
            + "(2 s: three readings at 1 Hz; one failed reading is not a lost GPU): it fell off the bus or its driver "
            + "reports it lost. Resolves with its next good reading.";

    public static final String STRAGGLER_MIN_BYTES_CONFIG = "streams.straggler.min.bytes.per.sec";
    public static final double DEFAULT_STRAGGLER_MIN_BYTES = 1024 * 1024;
    private static final String STRAGGLER_MIN_BYTES_DOC = "Peers must move at least this much (median tx+rx per port "
            + "in the window) for a rank to be compared with them: negligible traffic says nothing.";
    public static final String STRAGGLER_Z_CONFIG = "streams.straggler.z.threshold";
    public static final double DEFAULT_STRAGGLER_Z = 3.5;
    private static final String STRAGGLER_Z_DOC = "Robust z-score |x - median| / (1.4826 MAD) above which a port's "
            + "traffic deviates from its rail peers (same device and port on the job's other nodes).";
    public static final String STRAGGLER_MIN_DEVIATION_CONFIG = "streams.straggler.min.deviation";
    public static final double DEFAULT_STRAGGLER_MIN_DEVIATION = 0.25;
    private static final String STRAGGLER_MIN_DEVIATION_DOC = "...and by at least this fraction of the median (0.25: "
            + "a port at 70% of its peers' median deviates).";
    public static final String STRAGGLER_MAD_FLOOR_CONFIG = "streams.straggler.mad.floor";
    public static final double DEFAULT_STRAGGLER_MAD_FLOOR = 0.05;
    private static final String STRAGGLER_MAD_FLOOR_DOC = "Smallest spread used in the z-score, as a fraction of the "
            + "median: identical peers (MAD 0) would otherwise make any difference infinite.";
    public static final String STRAGGLER_MISSING_FRACTION_CONFIG = "streams.straggler.missing.fraction";
    public static final double DEFAULT_STRAGGLER_MISSING_FRACTION = 0.05;
    private static final String STRAGGLER_MISSING_FRACTION_DOC = "A reporting port below this fraction of its peers' "
            + "median has its traffic missing (works with a single peer, where no z-score exists).";
    public static final String STRAGGLER_WINDOWS_CONFIG = "streams.straggler.windows";
    public static final int DEFAULT_STRAGGLER_WINDOWS = 4;
    private static final String STRAGGLER_WINDOWS_DOC = "Continuity: how many recent windows are considered.";
    public static final String STRAGGLER_MIN_FLAGGED_CONFIG = "streams.straggler.min.flagged";
    public static final int DEFAULT_STRAGGLER_MIN_FLAGGED = 3;
    private static final String STRAGGLER_MIN_FLAGGED_DOC = "...and in how many of them the port must deviate "
            + "(3 of 4 windows of 10 s: flagged 30-40 s after it starts).";
    public static final String STRAGGLER_CLEAR_WINDOWS_CONFIG = "streams.straggler.clear.windows";
    public static final int DEFAULT_STRAGGLER_CLEAR_WINDOWS = 3;
    private static final String STRAGGLER_CLEAR_WINDOWS_DOC = "Consecutive normal windows that resolve a straggler.";
    public static final String STRAGGLER_WARMUP_CONFIG = "streams.straggler.warmup.ms";
    public static final long DEFAULT_STRAGGLER_WARMUP = 60_000;
    private static final String STRAGGLER_WARMUP_DOC = "Windows within this time of a job's first traffic are not "
            + "judged (NCCL init and warm-up are uneven).";

    public static final String LINK_DOWN_CLEAR_CONFIG = "streams.link.down.clear.ms";
    public static final long DEFAULT_LINK_DOWN_CLEAR = 30_000;
    private static final String LINK_DOWN_CLEAR_DOC = "LINK_DOWN resolves after the port has been ACTIVE without "
            + "link_downed increments this long, so a flapping link is one incident, not many.";
    public static final String LINK_DEGRADED_CLASSES_CONFIG = "streams.link.degraded.error.classes";
    public static final String DEFAULT_LINK_DEGRADED_CLASSES = "physical,retransmit,drop,completion,connection";
    private static final String LINK_DEGRADED_CLASSES_DOC = "Error classes whose increments degrade a link. "
            + "'congestion' (CNPs, ECN marks, xmit_wait) is off by default: it accompanies healthy RoCE traffic.";
    public static final String LINK_DEGRADED_WINDOW_CONFIG = "streams.link.degraded.window.ms";
    public static final long DEFAULT_LINK_DEGRADED_WINDOW = 60_000;
    private static final String LINK_DEGRADED_WINDOW_DOC = "Sustained errors: samples with increments counted over "
            + "this sliding time.";
    public static final String LINK_DEGRADED_MIN_SAMPLES_CONFIG = "streams.link.degraded.min.samples";
    public static final int DEFAULT_LINK_DEGRADED_MIN_SAMPLES = 3;
    private static final String LINK_DEGRADED_MIN_SAMPLES_DOC = "...at least this many samples with error "
            + "increments within the window (3 within 60 s); one burst of errors is not degradation.";
    public static final String LINK_DEGRADED_CLEAR_CONFIG = "streams.link.degraded.clear.ms";
    public static final long DEFAULT_LINK_DEGRADED_CLEAR = 120_000;
    private static final String LINK_DEGRADED_CLEAR_DOC = "LINK_DEGRADED resolves after this long without error "
            + "increments and at full rate.";
    public static final String LINK_NOMINAL_RATE_CONFIG = "streams.link.nominal.rate.bytes.per.sec";
    private static final String LINK_NOMINAL_RATE_DOC = "Optional fleet-wide nominal port rate (bytes/s, e.g. "
            + "25000000000 for 200 Gb/s); a port below it is downshifted. Unset: a port is downshifted when its "
            + "rate falls below the highest rate it has shown.";
    public static final String LINK_IDLE_AFTER_CONFIG = "streams.link.idle.after.ms";
    public static final long DEFAULT_LINK_IDLE_AFTER = 600_000;
    private static final String LINK_IDLE_AFTER_DOC = "LINK_IDLE: a port held by a Running job and idle this long "
            + "(10 min).";
    public static final String LINK_IDLE_BYTES_CONFIG = "streams.link.idle.bytes.per.sec";
    public static final double DEFAULT_LINK_IDLE_BYTES = 65_536;
    private static final String LINK_IDLE_BYTES_DOC = "A port below this tx+rx rate is idle.";

    public static final String COLLECTOR_SILENT_AFTER_CONFIG = "streams.collector.silent.after.ms";
    public static final long DEFAULT_COLLECTOR_SILENT_AFTER = 15_000;
    private static final String COLLECTOR_SILENT_AFTER_DOC = "COLLECTOR_SILENT: a node from which no sample arrived "
            + "for this long (wall clock).";
    public static final String COLLECTOR_CATCH_UP_MAX_CONFIG = "streams.collector.silent.catchup.max.ms";
    public static final long DEFAULT_COLLECTOR_CATCH_UP_MAX = 600_000;
    private static final String COLLECTOR_CATCH_UP_MAX_DOC = "While samples arrive more than "
            + "streams.collector.silent.after.ms after their timestamp, the app (or the instance feeding this one) is "
            + "catching up on a backlog, and silence is not judged: nodes whose samples are still queued would be "
            + "reported. The catch-up ends with the first sample on time again, or when nothing at all has arrived "
            + "for this long (part of the app can get nothing for a while in the middle of a catch-up). A node whose "
            + "samples stay late for longer than this (its clock is behind) no longer counts as catching up.";
    public static final String COLLECTOR_FORGET_CONFIG = "streams.collector.forget.ms";
    public static final long DEFAULT_COLLECTOR_FORGET = 86_400_000;
    private static final String COLLECTOR_FORGET_DOC = "A node silent this long is forgotten (a decommissioned node): "
            + "its COLLECTOR_SILENT incident is resolved then.";

    public static final String FALLBACK_WINDOW_CONFIG = "streams.tcp.fallback.window.ms";
    public static final long DEFAULT_FALLBACK_WINDOW = 20_000;
    private static final String FALLBACK_WINDOW_DOC = "TCP_FALLBACK judges a job's RDMA and host-interface traffic "
            + "in event-time windows of this length (20 s).";
    public static final String FALLBACK_WINDOWS_CONFIG = "streams.tcp.fallback.windows";
    public static final int DEFAULT_FALLBACK_WINDOWS = 3;
    private static final String FALLBACK_WINDOWS_DOC = "...and fires after this many windows that look like training "
            + "over TCP, consecutive but for windows with too little traffic to tell (pauses); a window where RDMA "
            + "carries the job's traffic, or a busy host interface is one-sided, starts the count again (3 x 20 s: "
            + "flagged 56-80 s after training began over sockets on real NCCL traces).";
    public static final String FALLBACK_RDMA_SHARE_CONFIG = "streams.tcp.fallback.rdma.share.max";
    public static final double DEFAULT_FALLBACK_RDMA_SHARE = 0.05;
    private static final String FALLBACK_RDMA_SHARE_DOC = "RDMA is near idle in a window when its bytes are at most "
            + "this fraction of the job's RDMA + host-interface bytes. The incident resolves with the first window "
            + "above it in which RDMA moves at least streams.tcp.fallback.host.min.bytes.per.sec.";
    public static final String FALLBACK_HOST_MIN_BYTES_CONFIG = "streams.tcp.fallback.host.min.bytes.per.sec";
    public static final double DEFAULT_FALLBACK_HOST_MIN_BYTES = 50e6;
    private static final String FALLBACK_HOST_MIN_BYTES_DOC = "A host interface carries training traffic only when "
            + "its mean tx+rx over the window is at least this (50 MB/s; NCCL over a 25 Gb/s eth0 moves GB/s).";
    public static final String FALLBACK_HOST_RISE_FACTOR_CONFIG = "streams.tcp.fallback.host.rise.factor";
    public static final double DEFAULT_FALLBACK_HOST_RISE_FACTOR = 5.0;
    private static final String FALLBACK_HOST_RISE_FACTOR_DOC = "...and at least this multiple of the interface's own "
            + "background: the lowest rate one of its samples showed for the job so far in windows that did not look "
            + "like training over TCP and in which RDMA carried the job's traffic or the interface was not busy "
            + "(NCCL init, training over RDMA); none yet, no such condition.";
    public static final String FALLBACK_SYMMETRY_CONFIG = "streams.tcp.fallback.symmetry.min";
    public static final double DEFAULT_FALLBACK_SYMMETRY = 0.5;
    private static final String FALLBACK_SYMMETRY_DOC = "...and roughly symmetric: min(tx, rx) / max(tx, rx) at least "
            + "this. Collectives send and receive alike; data loading (mostly rx) and checkpoints (mostly tx) do not.";
    public static final String FALLBACK_BUSY_FRACTION_CONFIG = "streams.tcp.fallback.busy.fraction";
    public static final double DEFAULT_FALLBACK_BUSY_FRACTION = 0.25;
    private static final String FALLBACK_BUSY_FRACTION_DOC = "...and sustained: at least this fraction of its "
            + "samples in the window at or above streams.tcp.fallback.host.min.bytes.per.sec (bursts every iteration, "
            + "or training that began or paused part way through the window; a transfer of a few seconds does not "
            + "count).";
    public static final String FALLBACK_NODES_FRACTION_CONFIG = "streams.tcp.fallback.nodes.fraction";
    public static final double DEFAULT_FALLBACK_NODES_FRACTION = 0.5;
    private static final String FALLBACK_NODES_FRACTION_DOC = "A window looks like training over TCP when at least "
            + "this fraction of the job's nodes (with host samples in it) carry such traffic: one rank on TCP is a "
            + "STRAGGLER, not a job-wide fallback.";

    private final AbstractConfig config;
    /**
     * The parsed values, read once: the detectors ask for thresholds on every sample, and each of
     * {@link AbstractConfig}'s getters costs three hash lookups, one of them in a concurrent set.
     */
    private final Map<String, Object> values;

    public DetectorConfig(AbstractConfig config) {
        this.config = config;
        this.values = new HashMap<>(config.values());
        if (stragglerMinFlagged() > stragglerWindows()) {
            throw new ConfigException(STRAGGLER_MIN_FLAGGED_CONFIG + " (" + stragglerMinFlagged()
                    + ") cannot exceed " + STRAGGLER_WINDOWS_CONFIG + " (" + stragglerWindows() + ")");
        }
        if (stallMinQuietMs() > stallMaxQuietMs()) {
            throw new ConfigException(STALL_MIN_QUIET_CONFIG + " (" + stallMinQuietMs() + ") cannot exceed "
                    + STALL_MAX_QUIET_CONFIG + " (" + stallMaxQuietMs() + ")");
        }
        if (stallLatenessMs() + 1_000 > stallMinQuietMs()) {
            throw new ConfigException(STALL_LATENESS_CONFIG + " (" + stallLatenessMs() + ") must be at least 1 s "
                    + "below " + STALL_MIN_QUIET_CONFIG + " (" + stallMinQuietMs() + "): a quiet the job resumed "
                    + "from is learned that long after it ended");
        }
        degradingClasses();
    }

    private double doubleOf(String key) {
        return (Double) values.get(key);
    }

    private long longOf(String key) {
        return (Long) values.get(key);
    }

    private int intOf(String key) {
        return (Integer) values.get(key);
    }

    public static ConfigDef define(ConfigDef def) {
        return def
                .define(STALL_MIN_QUIET_CONFIG, Type.LONG, DEFAULT_STALL_MIN_QUIET, Range.between(1_000, 3_600_000),
                        Importance.HIGH, STALL_MIN_QUIET_DOC)
                .define(STALL_MAX_QUIET_CONFIG, Type.LONG, DEFAULT_STALL_MAX_QUIET, Range.between(1_000, 86_400_000),
                        Importance.MEDIUM, STALL_MAX_QUIET_DOC)
                .define(STALL_QUIET_PORTS_FRACTION_CONFIG, Type.DOUBLE, DEFAULT_STALL_QUIET_PORTS_FRACTION,
                        Range.between(0.5, 1), Importance.MEDIUM, STALL_QUIET_PORTS_FRACTION_DOC)
                .define(STALL_QUIET_BYTES_CONFIG, Type.DOUBLE, DEFAULT_STALL_QUIET_BYTES, Range.atLeast(0),
                        Importance.MEDIUM, STALL_QUIET_BYTES_DOC)
                .define(STALL_QUIET_BASELINE_FRACTION_CONFIG, Type.DOUBLE, DEFAULT_STALL_QUIET_BASELINE_FRACTION,
                        Range.between(0, 0.5), Importance.LOW, STALL_QUIET_BASELINE_FRACTION_DOC)
                .define(STALL_SOCKET_QUIET_FRACTION_CONFIG, Type.DOUBLE, DEFAULT_STALL_SOCKET_QUIET_FRACTION,
                        Range.between(0, 0.5), Importance.LOW, STALL_SOCKET_QUIET_FRACTION_DOC)
                .define(STALL_WARMUP_CONFIG, Type.LONG, DEFAULT_STALL_WARMUP, Range.atLeast(0), Importance.MEDIUM,
                        STALL_WARMUP_DOC)
                .define(STALL_WARMUP_ACTIVE_CONFIG, Type.LONG, DEFAULT_STALL_WARMUP_ACTIVE, Range.atLeast(0),
                        Importance.LOW, STALL_WARMUP_ACTIVE_DOC)
                .define(STALL_HOST_RISE_FACTOR_CONFIG, Type.DOUBLE, DEFAULT_STALL_HOST_RISE_FACTOR,
                        Range.atLeast(1), Importance.LOW, STALL_HOST_RISE_FACTOR_DOC)
                .define(STALL_HOST_MIN_BYTES_CONFIG, Type.DOUBLE, DEFAULT_STALL_HOST_MIN_BYTES, Range.atLeast(0),
                        Importance.LOW, STALL_HOST_MIN_BYTES_DOC)
                .define(STALL_PAUSE_MULTIPLIER_CONFIG, Type.DOUBLE, DEFAULT_STALL_PAUSE_MULTIPLIER,
                        Range.between(1, 10), Importance.LOW, STALL_PAUSE_MULTIPLIER_DOC)
                .define(STALL_STALE_CONFIG, Type.LONG, DEFAULT_STALL_STALE, Range.atLeast(1_000), Importance.LOW,
                        STALL_STALE_DOC)
                .define(STALL_LATENESS_CONFIG, Type.LONG, DEFAULT_STALL_LATENESS, Range.atLeast(0), Importance.LOW,
                        STALL_LATENESS_DOC)
                .define(STALL_GPU_BUSY_CONFIG, Type.DOUBLE, DEFAULT_STALL_GPU_BUSY, Range.between(1, 100),
                        Importance.LOW, STALL_GPU_BUSY_DOC)
                .define(STALL_GPU_MEMORY_CONFIG, Type.DOUBLE, DEFAULT_STALL_GPU_MEMORY, Range.between(0, 100),
                        Importance.LOW, STALL_GPU_MEMORY_DOC)
                .define(STALL_GPU_WAIT_CONFIG, Type.LONG, DEFAULT_STALL_GPU_WAIT, Range.atLeast(0),
                        Importance.MEDIUM, STALL_GPU_WAIT_DOC)
                .define(STALL_GPU_GONE_CONFIG, Type.LONG, DEFAULT_STALL_GPU_GONE, Range.atLeast(0),
                        Importance.MEDIUM, STALL_GPU_GONE_DOC)
                .define(STALL_GPU_PROCESS_CPU_CONFIG, Type.DOUBLE, DEFAULT_STALL_GPU_PROCESS_CPU,
                        Range.between(0, 64), Importance.LOW, STALL_GPU_PROCESS_CPU_DOC)
                .define(GPU_IDLE_AFTER_CONFIG, Type.LONG, DEFAULT_GPU_IDLE_AFTER, Range.atLeast(1_000),
                        Importance.MEDIUM, GPU_IDLE_AFTER_DOC)
                .define(GPU_LOST_AFTER_CONFIG, Type.LONG, DEFAULT_GPU_LOST_AFTER, Range.atLeast(0),
                        Importance.MEDIUM, GPU_LOST_AFTER_DOC)
                .define(STRAGGLER_MIN_BYTES_CONFIG, Type.DOUBLE, DEFAULT_STRAGGLER_MIN_BYTES, Range.atLeast(0),
                        Importance.MEDIUM, STRAGGLER_MIN_BYTES_DOC)
                .define(STRAGGLER_Z_CONFIG, Type.DOUBLE, DEFAULT_STRAGGLER_Z, Range.atLeast(1), Importance.MEDIUM,
                        STRAGGLER_Z_DOC)
                .define(STRAGGLER_MIN_DEVIATION_CONFIG, Type.DOUBLE, DEFAULT_STRAGGLER_MIN_DEVIATION,
                        Range.between(0, 1), Importance.MEDIUM, STRAGGLER_MIN_DEVIATION_DOC)
                .define(STRAGGLER_MAD_FLOOR_CONFIG, Type.DOUBLE, DEFAULT_STRAGGLER_MAD_FLOOR, Range.between(0, 1),
                        Importance.LOW, STRAGGLER_MAD_FLOOR_DOC)
                .define(STRAGGLER_MISSING_FRACTION_CONFIG, Type.DOUBLE, DEFAULT_STRAGGLER_MISSING_FRACTION,
                        Range.between(0, 1), Importance.LOW, STRAGGLER_MISSING_FRACTION_DOC)
                .define(STRAGGLER_WINDOWS_CONFIG, Type.INT, DEFAULT_STRAGGLER_WINDOWS, Range.between(1, 30),
                        Importance.MEDIUM, STRAGGLER_WINDOWS_DOC)
                .define(STRAGGLER_MIN_FLAGGED_CONFIG, Type.INT, DEFAULT_STRAGGLER_MIN_FLAGGED, Range.between(1, 30),
                        Importance.MEDIUM, STRAGGLER_MIN_FLAGGED_DOC)
                .define(STRAGGLER_CLEAR_WINDOWS_CONFIG, Type.INT, DEFAULT_STRAGGLER_CLEAR_WINDOWS,
                        Range.between(1, 30), Importance.LOW, STRAGGLER_CLEAR_WINDOWS_DOC)
                .define(STRAGGLER_WARMUP_CONFIG, Type.LONG, DEFAULT_STRAGGLER_WARMUP, Range.atLeast(0),
                        Importance.LOW, STRAGGLER_WARMUP_DOC)
                .define(LINK_DOWN_CLEAR_CONFIG, Type.LONG, DEFAULT_LINK_DOWN_CLEAR, Range.atLeast(0),
                        Importance.MEDIUM, LINK_DOWN_CLEAR_DOC)
                .define(LINK_DEGRADED_CLASSES_CONFIG, Type.LIST, DEFAULT_LINK_DEGRADED_CLASSES, Importance.MEDIUM,
                        LINK_DEGRADED_CLASSES_DOC)
                .define(LINK_DEGRADED_WINDOW_CONFIG, Type.LONG, DEFAULT_LINK_DEGRADED_WINDOW,
                        Range.atLeast(1_000), Importance.MEDIUM, LINK_DEGRADED_WINDOW_DOC)
                .define(LINK_DEGRADED_MIN_SAMPLES_CONFIG, Type.INT, DEFAULT_LINK_DEGRADED_MIN_SAMPLES,
                        Range.between(1, 1_000), Importance.MEDIUM, LINK_DEGRADED_MIN_SAMPLES_DOC)
                .define(LINK_DEGRADED_CLEAR_CONFIG, Type.LONG, DEFAULT_LINK_DEGRADED_CLEAR, Range.atLeast(0),
                        Importance.LOW, LINK_DEGRADED_CLEAR_DOC)
                .define(LINK_NOMINAL_RATE_CONFIG, Type.LONG, null, Importance.LOW, LINK_NOMINAL_RATE_DOC)
                .define(LINK_IDLE_AFTER_CONFIG, Type.LONG, DEFAULT_LINK_IDLE_AFTER, Range.atLeast(1_000),
                        Importance.MEDIUM, LINK_IDLE_AFTER_DOC)
                .define(LINK_IDLE_BYTES_CONFIG, Type.DOUBLE, DEFAULT_LINK_IDLE_BYTES, Range.atLeast(0),
                        Importance.LOW, LINK_IDLE_BYTES_DOC)
                .define(COLLECTOR_SILENT_AFTER_CONFIG, Type.LONG, DEFAULT_COLLECTOR_SILENT_AFTER,
                        Range.atLeast(1_000), Importance.MEDIUM, COLLECTOR_SILENT_AFTER_DOC)
                .define(COLLECTOR_CATCH_UP_MAX_CONFIG, Type.LONG, DEFAULT_COLLECTOR_CATCH_UP_MAX, Range.atLeast(0),
                        Importance.LOW, COLLECTOR_CATCH_UP_MAX_DOC)
                .define(COLLECTOR_FORGET_CONFIG, Type.LONG, DEFAULT_COLLECTOR_FORGET, Range.atLeast(60_000),
                        Importance.LOW, COLLECTOR_FORGET_DOC)
                .define(FALLBACK_WINDOW_CONFIG, Type.LONG, DEFAULT_FALLBACK_WINDOW, Range.between(5_000, 600_000),
                        Importance.MEDIUM, FALLBACK_WINDOW_DOC)
                .define(FALLBACK_WINDOWS_CONFIG, Type.INT, DEFAULT_FALLBACK_WINDOWS, Range.between(1, 100),
                        Importance.MEDIUM, FALLBACK_WINDOWS_DOC)
                .define(FALLBACK_RDMA_SHARE_CONFIG, Type.DOUBLE, DEFAULT_FALLBACK_RDMA_SHARE, Range.between(0, 0.5),
                        Importance.MEDIUM, FALLBACK_RDMA_SHARE_DOC)
                .define(FALLBACK_HOST_MIN_BYTES_CONFIG, Type.DOUBLE, DEFAULT_FALLBACK_HOST_MIN_BYTES,
                        Range.atLeast(0), Importance.MEDIUM, FALLBACK_HOST_MIN_BYTES_DOC)
                .define(FALLBACK_HOST_RISE_FACTOR_CONFIG, Type.DOUBLE, DEFAULT_FALLBACK_HOST_RISE_FACTOR,
                        Range.atLeast(1), Importance.LOW, FALLBACK_HOST_RISE_FACTOR_DOC)
                .define(FALLBACK_SYMMETRY_CONFIG, Type.DOUBLE, DEFAULT_FALLBACK_SYMMETRY, Range.between(0, 1),
                        Importance.LOW, FALLBACK_SYMMETRY_DOC)
                .define(FALLBACK_BUSY_FRACTION_CONFIG, Type.DOUBLE, DEFAULT_FALLBACK_BUSY_FRACTION,
                        Range.between(0, 1), Importance.LOW, FALLBACK_BUSY_FRACTION_DOC)
                .define(FALLBACK_NODES_FRACTION_CONFIG, Type.DOUBLE, DEFAULT_FALLBACK_NODES_FRACTION,
                        Range.between(0, 1), Importance.LOW, FALLBACK_NODES_FRACTION_DOC);
    }

    public long stallMinQuietMs() {
        return longOf(STALL_MIN_QUIET_CONFIG);
    }

    public long stallMaxQuietMs() {
        return longOf(STALL_MAX_QUIET_CONFIG);
    }

    public double stallQuietPortsFraction() {
        return doubleOf(STALL_QUIET_PORTS_FRACTION_CONFIG);
    }

    public double stallQuietBytesPerSec() {
        return doubleOf(STALL_QUIET_BYTES_CONFIG);
    }

    public double stallQuietBaselineFraction() {
        return doubleOf(STALL_QUIET_BASELINE_FRACTION_CONFIG);
    }

    public double stallSocketQuietFraction() {
        return doubleOf(STALL_SOCKET_QUIET_FRACTION_CONFIG);
    }

    public long stallWarmupMs() {
        return longOf(STALL_WARMUP_CONFIG);
    }

    public long stallWarmupActiveMs() {
        return longOf(STALL_WARMUP_ACTIVE_CONFIG);
    }

    public double stallHostRiseFactor() {
        return doubleOf(STALL_HOST_RISE_FACTOR_CONFIG);
    }

    public double stallHostMinBytesPerSec() {
        return doubleOf(STALL_HOST_MIN_BYTES_CONFIG);
    }

    public double stallPauseMultiplier() {
        return doubleOf(STALL_PAUSE_MULTIPLIER_CONFIG);
    }

    public long stallStaleMs() {
        return longOf(STALL_STALE_CONFIG);
    }

    public long stallLatenessMs() {
        return longOf(STALL_LATENESS_CONFIG);
    }

    public double stallGpuBusyPercent() {
        return doubleOf(STALL_GPU_BUSY_CONFIG);
    }

    public double stallGpuMemoryPercent() {
        return doubleOf(STALL_GPU_MEMORY_CONFIG);
    }

    public long stallGpuWaitMs() {
        return longOf(STALL_GPU_WAIT_CONFIG);
    }

    public long stallGpuGoneMs() {
        return longOf(STALL_GPU_GONE_CONFIG);
    }

    public double stallGpuProcessCpuCores() {
        return doubleOf(STALL_GPU_PROCESS_CPU_CONFIG);
    }

    public long gpuIdleAfterMs() {
        return longOf(GPU_IDLE_AFTER_CONFIG);
    }

    public long gpuLostAfterMs() {
        return longOf(GPU_LOST_AFTER_CONFIG);
    }

    public double stragglerMinBytesPerSec() {
        return doubleOf(STRAGGLER_MIN_BYTES_CONFIG);
    }

    public double stragglerZThreshold() {
        return doubleOf(STRAGGLER_Z_CONFIG);
    }

    public double stragglerMinDeviation() {
        return doubleOf(STRAGGLER_MIN_DEVIATION_CONFIG);
    }

    public double stragglerMadFloor() {
        return doubleOf(STRAGGLER_MAD_FLOOR_CONFIG);
    }

    public double stragglerMissingFraction() {
        return doubleOf(STRAGGLER_MISSING_FRACTION_CONFIG);
    }

    public int stragglerWindows() {
        return intOf(STRAGGLER_WINDOWS_CONFIG);
    }

    public int stragglerMinFlagged() {
        return intOf(STRAGGLER_MIN_FLAGGED_CONFIG);
    }

    public int stragglerClearWindows() {
        return intOf(STRAGGLER_CLEAR_WINDOWS_CONFIG);
    }

    public long stragglerWarmupMs() {
        return longOf(STRAGGLER_WARMUP_CONFIG);
    }

    public long linkDownClearMs() {
        return longOf(LINK_DOWN_CLEAR_CONFIG);
    }

    /** The classes whose increments degrade a link; an unknown name fails at start with the key's name. */
    public Set<CounterClass> degradingClasses() {
        List<String> names = config.getList(LINK_DEGRADED_CLASSES_CONFIG);
        Set<CounterClass> out = EnumSet.noneOf(CounterClass.class);
        for (String name : names) {
            String wanted = name.trim().toLowerCase(Locale.ROOT);
            CounterClass match = null;
            for (CounterClass c : CounterClass.values()) {
                if (c.wireName().equalsIgnoreCase(wanted) || c.name().equalsIgnoreCase(wanted)) {
                    match = c;
                }
            }
            if (match == null) {
                throw new ConfigException(LINK_DEGRADED_CLASSES_CONFIG, names, "unknown error class '" + name + "'");
            }
            out.add(match);
        }
        return out;
    }

    public long linkDegradedWindowMs() {
        return longOf(LINK_DEGRADED_WINDOW_CONFIG);
    }

    public int linkDegradedMinSamples() {
        return intOf(LINK_DEGRADED_MIN_SAMPLES_CONFIG);
    }

    public long linkDegradedClearMs() {
        return longOf(LINK_DEGRADED_CLEAR_CONFIG);
    }

    /** The configured nominal rate, or null: then each port's highest seen rate is its nominal. */
    public Long linkNominalRateBytesPerSec() {
        return (Long) values.get(LINK_NOMINAL_RATE_CONFIG);
    }

    public long linkIdleAfterMs() {
        return longOf(LINK_IDLE_AFTER_CONFIG);
    }

    public double linkIdleBytesPerSec() {
        return doubleOf(LINK_IDLE_BYTES_CONFIG);
    }

    public long collectorSilentAfterMs() {
        return longOf(COLLECTOR_SILENT_AFTER_CONFIG);
    }

    public long collectorCatchUpMaxMs() {
        return longOf(COLLECTOR_CATCH_UP_MAX_CONFIG);
    }

    public long collectorForgetMs() {
        return longOf(COLLECTOR_FORGET_CONFIG);
    }

    public long fallbackWindowMs() {
        return longOf(FALLBACK_WINDOW_CONFIG);
    }

    public int fallbackWindows() {
        return intOf(FALLBACK_WINDOWS_CONFIG);
    }

    public double fallbackRdmaShareMax() {
        return doubleOf(FALLBACK_RDMA_SHARE_CONFIG);
    }

    public double fallbackHostMinBytesPerSec() {
        return doubleOf(FALLBACK_HOST_MIN_BYTES_CONFIG);
    }

    public double fallbackHostRiseFactor() {
        return doubleOf(FALLBACK_HOST_RISE_FACTOR_CONFIG);
    }

    public double fallbackSymmetryMin() {
        return doubleOf(FALLBACK_SYMMETRY_CONFIG);
    }

    public double fallbackBusyFraction() {
        return doubleOf(FALLBACK_BUSY_FRACTION_CONFIG);
    }

    public double fallbackNodesFraction() {
        return doubleOf(FALLBACK_NODES_FRACTION_CONFIG);
    }
}
