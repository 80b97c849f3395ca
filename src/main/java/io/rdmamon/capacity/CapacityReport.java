package io.rdmamon.capacity;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.List;

/**
 * What {@code rdmamon capacity} found, as printed by {@code --json}. Utilisations and headroom are fractions of the
 * nominal rate (0..1), bandwidths bytes per second, times ISO-8601 UTC; a value InfluxDB did not return is null.
 *
 * @param source       the retention policy read, e.g. {@code rp_1y}
 * @param window       the InfluxQL duration looked back, e.g. {@code 7d}
 * @param generatedAt  when the report was computed (the window ends here)
 * @param idleBelow    the idle threshold applied to allocated links
 */
@JsonPropertyOrder({"source", "window", "generatedAt", "idleBelow", "links", "nodes", "idleLinks", "busiestJobs",
        "busiestHoursOfDay", "rdmaUse"})
public record CapacityReport(String source, String window, String generatedAt, double idleBelow,
                             List<LinkUsage> links, List<NodeUsage> nodes, List<IdleLink> idleLinks,
                             List<JobDemand> busiestJobs, List<HourOfDay> busiestHoursOfDay,
                             List<JobRdmaUse> rdmaUse) {

    public CapacityReport {
        links = List.copyOf(links);
        nodes = List.copyOf(nodes);
        idleLinks = List.copyOf(idleLinks);
        busiestJobs = List.copyOf(busiestJobs);
        busiestHoursOfDay = List.copyOf(busiestHoursOfDay);
        rdmaUse = List.copyOf(rdmaUse);
    }

    /** One RDMA port over the window; {@code headroom} is 1 - p95, {@code headroomBytesPerSec} that at nominal rate. */
    @JsonPropertyOrder({"node", "device", "port", "p50", "p95", "p99", "max", "nominalBytesPerSec", "headroom",
            "headroomBytesPerSec", "peakHour", "peakHourUtilisation"})
    public record LinkUsage(String node, String device, String port, Double p50, Double p95, Double p99, Double max,
                            Double nominalBytesPerSec, Double headroom, Double headroomBytesPerSec, String peakHour,
                            Double peakHourUtilisation) {
    }

    /** One node: statistics of the per-minute mean utilisation over its links. */
    @JsonPropertyOrder({"node", "links", "p50", "p95", "p99", "max", "headroom", "peakHour", "peakHourUtilisation"})
    public record NodeUsage(String node, int links, Double p50, Double p95, Double p99, Double max, Double headroom,
                            String peakHour, Double peakHourUtilisation) {
    }

    /** A port a Running job held without using it; {@code job} is the job's name when known. */
    @JsonPropertyOrder({"node", "device", "port", "namespace", "jobUid", "job", "minutes", "peakUtilisation",
            "meanUtilisation"})
    public record IdleLink(String node, String device, String port, String namespace, String jobUid, String job,
                           long minutes, Double peakUtilisation, Double meanUtilisation) {
    }

    /** A job's bandwidth (tx + rx) over the minutes it ran. */
    @JsonPropertyOrder({"namespace", "job", "meanBytesPerSec", "p50BytesPerSec", "p95BytesPerSec", "p99BytesPerSec",
            "peakBytesPerSec", "minutes"})
    public record JobDemand(String namespace, String job, Double meanBytesPerSec, Double p50BytesPerSec,
                            Double p95BytesPerSec, Double p99BytesPerSec, Double peakBytesPerSec, long minutes) {
    }

    /**
     * Did RDMA help a job: its mean RDMA share (RDMA / (RDMA + host-interface) bytes; near 0 when NCCL fell back to
     * TCP), its mean RDMA and host bytes/s, and its peak 1-minute mean per NIC against what the operator expects of
     * such a NIC ({@code peakOfExpected} = peak / expected, null when either is unknown).
     */
    @JsonPropertyOrder({"namespace", "job", "rdmaShare", "meanRdmaBytesPerSec", "meanHostBytesPerSec",
            "peakNicBytesPerSec", "expectedNicBytesPerSec", "peakOfExpected", "minutes"})
    public record JobRdmaUse(String namespace, String job, Double rdmaShare, Double meanRdmaBytesPerSec,
                             Double meanHostBytesPerSec, Double peakNicBytesPerSec, Double expectedNicBytesPerSec,
                             Double peakOfExpected, long minutes) {
    }

    /** An hour of the day (UTC) and the cluster's mean throughput in it, over the {@code hours} seen in the window. */
    @JsonPropertyOrder({"hourUtc", "meanTxBytesPerSec", "meanRxBytesPerSec", "hours"})
    public record HourOfDay(int hourUtc, double meanTxBytesPerSec, double meanRxBytesPerSec, int hours) {
    }
}
