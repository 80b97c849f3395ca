package io.rdmamon.influx;

import io.rdmamon.influx.MeasurementSpec.FieldSpec;
import io.rdmamon.influx.MeasurementSpec.FieldType;
import io.rdmamon.influx.MeasurementSpec.Rollup;
import io.rdmamon.model.CounterClass;
import io.rdmamon.model.Topics;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * rdmamon's InfluxDB schema: what dashboards, alert rules and the capacity report may query. Raw points go to the
 * raw retention policy ({@code rp_raw}, 7 days); continuous queries write 1-minute rollups with the same measurement
 * names into {@code rp_1y} (see {@link MeasurementSpec.Rollup}).
 *
 * <p>Rules: tags have bounded cardinality (node, device, port, job, rank, type...) - never incident ids or times;
 * numeric fields are in base units (bytes/s, seconds, fractions 0..1); an unknown value is an absent field, never 0;
 * a tag and a field never share a name; the timestamp is the record's event time (ms), so a replayed record overwrites
 * its own point (same measurement, tags and time) instead of adding one.
 */
public final class Schema {
    // tags
    public static final String NODE = "node";
    public static final String DEVICE = "device";
    public static final String PORT = "port";
    public static final String SOURCE = "source";
    public static final String LINK_LAYER = "link_layer";
    public static final String IFACE = "iface";
    public static final String COUNTER = "counter";
    public static final String ERROR_CLASS = "error_class";
    public static final String JOB = "job";
    public static final String NAMESPACE = "namespace";
    public static final String JOB_UID = "job_uid";
    public static final String RANK = "rank";
    public static final String TYPE = "type";
    public static final String SEVERITY = "severity";
    public static final String STATUS = "status";
    public static final String GPU = "gpu";
    public static final String UUID = "uuid";

    // fields
    public static final String INTERVAL_SECONDS = "interval_seconds";
    public static final String STATE = "state";
    public static final String PHYS_STATE = "phys_state";
    public static final String ACTIVE = "active";
    public static final String RATE_BYTES_PER_SEC = "rate_bytes_per_sec";
    public static final String TX_BYTES_PER_SEC = "tx_bytes_per_sec";
    public static final String RX_BYTES_PER_SEC = "rx_bytes_per_sec";
    public static final String BYTES_PER_SEC = "bytes_per_sec";
    public static final String TX_PACKETS_PER_SEC = "tx_packets_per_sec";
    public static final String RX_PACKETS_PER_SEC = "rx_packets_per_sec";
    public static final String TX_UTILISATION = "tx_utilisation";
    public static final String RX_UTILISATION = "rx_utilisation";
    public static final String UTILISATION = "utilisation";
    public static final String INCREMENT = "increment";
    public static final String WINDOW_SECONDS = "window_seconds";
    public static final String RANKS_REPORTING = "ranks_reporting";
    public static final String RANKS_EXPECTED = "ranks_expected";
    public static final String RANK_MIN_BYTES_PER_SEC = "rank_min_bytes_per_sec";
    public static final String RANK_MEDIAN_BYTES_PER_SEC = "rank_median_bytes_per_sec";
    public static final String RANK_MAX_BYTES_PER_SEC = "rank_max_bytes_per_sec";
    public static final String ESTIMATED = "estimated";
    public static final String SHARED_BY = "shared_by";
    public static final String SHARE = "share";
    public static final String HOST_BYTES_PER_SEC = "host_bytes_per_sec";
    public static final String RDMA_SHARE = "rdma_share";
    public static final String NIC_BYTES_PER_SEC = "nic_bytes_per_sec";
    public static final String EXPECTED_NIC_BYTES_PER_SEC = "expected_nic_bytes_per_sec";
    public static final String ID = "id";
    public static final String SUMMARY = "summary";
    public static final String RANKS = "ranks";
    public static final String FIRING = "firing";
    public static final String STARTS_AT_MS = "starts_at_ms";
    public static final String DETECTED_AT_MS = "detected_at_ms";
    public static final String ENDS_AT_MS = "ends_at_ms";
    public static final String DETECTION_DELAY_SECONDS = "detection_delay_seconds";
    public static final String DURATION_SECONDS = "duration_seconds";
    public static final String UTILIZATION_PERCENT = "utilization_percent";
    public static final String MEMORY_UTILIZATION_PERCENT = "memory_utilization_percent";
    public static final String POWER_WATTS = "power_watts";
    public static final String SM_CLOCK_MHZ = "sm_clock_mhz";
    public static final String PROCESSES = "processes";
    public static final String PROCESS_CPU_CORES = "process_cpu_cores";
    public static final String PROCESS_READ_BYTES_PER_SEC = "process_read_bytes_per_sec";
    public static final String PROCESS_WRITE_BYTES_PER_SEC = "process_write_bytes_per_sec";
    /** Link health field for error classes the sink does not know (a newer stream app). */
    public static final String ERRORS_OTHER = "errors_other";
    /** Error-class tag value for counters without a {@link CounterClass}. */
    public static final String UNCLASSIFIED = "other";
    /** The rollup field counting the raw points behind a 1-minute point. */
    public static final String SAMPLES = "samples";

    private static final String BPS = "bytes/s";

    public static final MeasurementSpec RDMA_PORT = new MeasurementSpec("rdma_port", Topics.PORT_SAMPLES, "ts",
            List.of(NODE, DEVICE, PORT, SOURCE, LINK_LAYER),
            concat(List.of(field(INTERVAL_SECONDS, FieldType.FLOAT, "s",
                            "sampling interval (0 on a port's first sample)", Rollup.MAX)),
                    portStateAndTraffic(),
                    List.of(rate(TX_PACKETS_PER_SEC, "packets/s", "packets sent"),
                            rate(RX_PACKETS_PER_SEC, "packets/s", "packets received"))),
            INTERVAL_SECONDS, "one RDMA port's traffic over one sampling interval (PortSample)");

    public static final MeasurementSpec RDMA_PORT_ERRORS = new MeasurementSpec("rdma_port_errors",
            Topics.PORT_SAMPLES, "ts",
            List.of(NODE, DEVICE, PORT, SOURCE, COUNTER, ERROR_CLASS),
            List.of(field(INCREMENT, FieldType.INTEGER, "count", "counter increment over the interval", Rollup.SUM)),
            null, "one point per non-zero error/drop/retransmit/congestion counter increment (PortSample.errors); "
                    + "error_class is the CounterClass wire name (linkDown, physical, retransmit, congestion, drop, "
                    + "completion, connection) or other");

    public static final MeasurementSpec HOST_IFACE = new MeasurementSpec("host_iface", Topics.HOST_SAMPLES, "ts",
            List.of(NODE, IFACE),
            List.of(
                    field(INTERVAL_SECONDS, FieldType.FLOAT, "s", "sampling interval", Rollup.MAX),
                    rate(TX_BYTES_PER_SEC, BPS, "bytes sent"),
                    rate(RX_BYTES_PER_SEC, BPS, "bytes received"),
                    rate(TX_PACKETS_PER_SEC, "packets/s", "packets sent"),
                    rate(RX_PACKETS_PER_SEC, "packets/s", "packets received")),
            INTERVAL_SECONDS, "one host network interface's (TCP, storage) traffic over one interval "
                    + "(HostIfaceSample)");

    public static final MeasurementSpec HOST_IFACE_ERRORS = new MeasurementSpec("host_iface_errors",
            Topics.HOST_SAMPLES, "ts",
            List.of(NODE, IFACE, COUNTER),
            List.of(field(INCREMENT, FieldType.INTEGER, "count", "counter increment over the interval", Rollup.SUM)),
            null, "one point per non-zero rx/tx error or drop increment (HostIfaceSample.errors)");

    public static final MeasurementSpec GPU_SAMPLE = new MeasurementSpec("gpu", Topics.GPU_SAMPLES, "ts",
            List.of(NODE, GPU, UUID),
            List.of(
                    field(INTERVAL_SECONDS, FieldType.FLOAT, "s", "sampling interval", Rollup.MAX),
                    rate(UTILIZATION_PERCENT, "%", "share of the interval in which a kernel ran (NVML)"),
                    rate(MEMORY_UTILIZATION_PERCENT, "%", "share of the interval in which device memory was read "
                            + "or written (NVML)"),
                    rate(POWER_WATTS, "W", "power draw"),
                    field(SM_CLOCK_MHZ, FieldType.FLOAT, "MHz", "SM clock (at its floor when the GPU has no work)",
                            Rollup.MEAN, Rollup.MIN),
                    field(PROCESSES, FieldType.INTEGER, "count", "compute processes on the GPU (absent when the "
                            + "process table could not be read)", Rollup.MIN, Rollup.MAX),
                    rate(PROCESS_CPU_CORES, "cores", "CPU of the GPU's compute processes and their process trees "
                            + "(absent where they cannot be seen)"),
                    rate(PROCESS_READ_BYTES_PER_SEC, "B/s", "bytes those process trees read through system calls "
                            + "(rchar: storage, page cache, network filesystems)"),
                    rate(PROCESS_WRITE_BYTES_PER_SEC, "B/s", "bytes those process trees wrote through system calls "
                            + "(wchar)")),
            INTERVAL_SECONDS, "one GPU's activity over one sampling interval (GpuSample); gpu is the index on the "
                    + "node, absent fields were not reported by the driver");

    public static final MeasurementSpec JOB_BANDWIDTH = new MeasurementSpec("job_bandwidth", Topics.JOB_BANDWIDTH,
            "windowStart",
            List.of(JOB, NAMESPACE, JOB_UID),
            List.of(
                    rate(TX_BYTES_PER_SEC, BPS, "job's bytes sent, window average"),
                    rate(RX_BYTES_PER_SEC, BPS, "job's bytes received, window average"),
                    rate(BYTES_PER_SEC, BPS, "tx + rx"),
                    field(WINDOW_SECONDS, FieldType.FLOAT, "s", "window length", Rollup.MAX),
                    field(RANKS_REPORTING, FieldType.INTEGER, "count", "ranks with samples in the window",
                            Rollup.MIN),
                    field(RANKS_EXPECTED, FieldType.INTEGER, "count", "ranks the job has", Rollup.MAX),
                    field(RANK_MIN_BYTES_PER_SEC, FieldType.FLOAT, BPS, "slowest rank (tx + rx)", Rollup.MIN),
                    field(RANK_MEDIAN_BYTES_PER_SEC, FieldType.FLOAT, BPS, "median rank (tx + rx)", Rollup.MEAN),
                    field(RANK_MAX_BYTES_PER_SEC, FieldType.FLOAT, BPS, "fastest rank (tx + rx)", Rollup.MAX),
                    field(ESTIMATED, FieldType.BOOLEAN, "", "true when a shared device's bytes were split by rule",
                            Rollup.LAST),
                    field(HOST_BYTES_PER_SEC, FieldType.FLOAT, BPS, "tx + rx of the host interfaces of the job's nodes "
                            + "(absent when none reported)", Rollup.MEAN, Rollup.MAX),
                    field(RDMA_SHARE, FieldType.FLOAT, "fraction", "RDMA / (RDMA + host) bytes: near 0 when NCCL "
                            + "fell back to TCP (absent when unknown)", Rollup.MEAN, Rollup.MIN),
                    field(NIC_BYTES_PER_SEC, FieldType.FLOAT, BPS, "per NIC of the job: the busier direction of "
                            + "each measured port, averaged over them", Rollup.MEAN, Rollup.MAX),
                    field(EXPECTED_NIC_BYTES_PER_SEC, FieldType.FLOAT, BPS, "what the operator expects of one such "
                            + "NIC (streams.nic.expected.*; absent when not configured)", Rollup.MAX)),
            BYTES_PER_SEC, "a job's RDMA bandwidth over one event-time window (JobBandwidth); job is the job name");

    public static final MeasurementSpec JOB_RANK_BANDWIDTH = new MeasurementSpec("job_rank_bandwidth",
            Topics.JOB_BANDWIDTH, "windowStart",
            List.of(JOB, NAMESPACE, JOB_UID, RANK, NODE),
            List.of(
                    rate(TX_BYTES_PER_SEC, BPS, "rank's bytes sent over all its devices"),
                    rate(RX_BYTES_PER_SEC, BPS, "rank's bytes received over all its devices"),
                    rate(BYTES_PER_SEC, BPS, "tx + rx"),
                    field(SHARE, FieldType.FLOAT, "fraction", "rank's share of the job's bytes (absent when the job "
                            + "moved nothing)", Rollup.MEAN, Rollup.MIN, Rollup.MAX),
                    field(ESTIMATED, FieldType.BOOLEAN, "", "true when split from a shared device", Rollup.LAST)),
            BYTES_PER_SEC, "one point per rank per window (JobBandwidth.ranks)");

    public static final MeasurementSpec LINK_HEALTH = new MeasurementSpec("link_health", Topics.LINK_HEALTH, "ts",
            List.of(NODE, DEVICE, PORT, JOB_UID, NAMESPACE),
            linkHealthFields(), null,
            "one port's health per sample (LinkHealth); job_uid/namespace only while a Running job holds the port; "
                    + "errors_* are increments by CounterClass, absent when zero");

    public static final MeasurementSpec ALERT = new MeasurementSpec("alert", Topics.ALERTS,
            "detectedAt (firing), endsAt (resolved)",
            List.of(TYPE, STATUS, SEVERITY, JOB, NAMESPACE, JOB_UID, NODE, DEVICE, PORT, RANK),
            List.of(
                    field(ID, FieldType.STRING, "", "incident id (stable per incident)", Rollup.LAST),
                    field(SUMMARY, FieldType.STRING, "", "human-readable summary"),
                    field(RANKS, FieldType.STRING, "", "ranks concerned, as in labels.ranks (e.g. 4,5)"),
                    field(FIRING, FieldType.INTEGER, "0/1", "1 on the firing record, 0 on the resolved one",
                            Rollup.SUM),
                    field(STARTS_AT_MS, FieldType.INTEGER, "epoch ms", "when the condition began"),
                    field(DETECTED_AT_MS, FieldType.INTEGER, "epoch ms", "when it was flagged"),
                    field(ENDS_AT_MS, FieldType.INTEGER, "epoch ms", "when it ended (resolved only)"),
                    field(DETECTION_DELAY_SECONDS, FieldType.FLOAT, "s", "detectedAt - startsAt", Rollup.MEAN,
                            Rollup.MAX),
                    field(DURATION_SECONDS, FieldType.FLOAT, "s", "endsAt - startsAt (resolved only)", Rollup.MEAN,
                            Rollup.MAX)),
            ID, "one point per alert record (Alert), firing and resolved; job is the job name, job_uid comes from "
                    + "labels.uid, rank from labels.ranks when it names a single rank");

    public static final List<MeasurementSpec> ALL = List.of(RDMA_PORT, RDMA_PORT_ERRORS, HOST_IFACE,
            HOST_IFACE_ERRORS, GPU_SAMPLE, JOB_BANDWIDTH, JOB_RANK_BANDWIDTH, LINK_HEALTH, ALERT);

    private Schema() {
    }

    /** The link health field for an error class: {@code linkDown} → {@code errors_link_down}. */
    public static String errorsField(CounterClass errorClass) {
        String snake = errorClass.wireName().replaceAll("([a-z])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
        return "errors_" + snake;
    }

    private static List<FieldSpec> linkHealthFields() {
        List<FieldSpec> fields = new ArrayList<>(portStateAndTraffic());
        fields.addAll(List.of(
                rate(TX_UTILISATION, "fraction", "tx bytes/s over nominal rate"),
                rate(RX_UTILISATION, "fraction", "rx bytes/s over nominal rate"),
                rate(UTILISATION, "fraction", "the larger of tx and rx utilisation"),
                field(SHARED_BY, FieldType.INTEGER, "count", "Running jobs holding the device (absent when "
                        + "unassigned); above 1 the job_uid is the first of them", Rollup.MAX)));
        Arrays.stream(CounterClass.values()).forEach(c -> fields.add(field(errorsField(c), FieldType.INTEGER,
                "count", "increments of " + c.wireName() + " counters", Rollup.SUM)));
        fields.add(field(ERRORS_OTHER, FieldType.INTEGER, "count", "increments of unknown classes", Rollup.SUM));
        return fields;
    }

    /** What a port sample and a link health record both say about a port. */
    private static List<FieldSpec> portStateAndTraffic() {
        return List.of(
                field(STATE, FieldType.STRING, "", "port state, e.g. ACTIVE, DOWN", Rollup.LAST),
                field(PHYS_STATE, FieldType.STRING, "", "physical state, e.g. LinkUp", Rollup.LAST),
                field(ACTIVE, FieldType.INTEGER, "0/1", "1 when state is ACTIVE", Rollup.MIN, Rollup.MEAN),
                field(RATE_BYTES_PER_SEC, FieldType.INTEGER, BPS, "nominal port rate", Rollup.MAX, Rollup.MIN),
                rate(TX_BYTES_PER_SEC, BPS, "bytes sent"),
                rate(RX_BYTES_PER_SEC, BPS, "bytes received"));
    }

    @SafeVarargs
    private static List<FieldSpec> concat(List<FieldSpec>... parts) {
        List<FieldSpec> all = new ArrayList<>();
        Arrays.stream(parts).forEach(all::addAll);
        return all;
    }

    private static FieldSpec rate(String name, String unit, String doc) {
        return field(name, FieldType.FLOAT, unit, doc, Rollup.MEAN, Rollup.MAX);
    }

    private static FieldSpec field(String name, FieldType type, String unit, String doc, Rollup... rollup) {
        return new FieldSpec(name, type, unit, doc, List.of(rollup));
    }
}
