package io.rdmamon.capacity;

import io.rdmamon.capacity.CapacityReport.HourOfDay;
import io.rdmamon.capacity.CapacityReport.IdleLink;
import io.rdmamon.capacity.CapacityReport.JobDemand;
import io.rdmamon.capacity.CapacityReport.JobRdmaUse;
import io.rdmamon.capacity.CapacityReport.LinkUsage;
import io.rdmamon.capacity.CapacityReport.NodeUsage;
import io.rdmamon.capacity.SeriesReader.Row;
import org.influxdb.InfluxDB;

import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Computes a {@link CapacityReport} with the {@link CapacityQueries}: InfluxDB does the statistics, this class only
 * joins the per-link, per-node and per-job results, ranks them, and folds hourly throughput into hours of the day.
 */
public final class CapacityAnalysis {
    private final SeriesReader reader;
    private final CapacityQueries queries;
    private final double idleBelow;
    private final int topJobs;
    private final int topHours;

    /**
     * @param idleBelow a held link is idle when no 1-minute mean utilisation reached this fraction
     * @param topJobs   how many of the busiest jobs, and of the jobs by RDMA share, to list
     * @param topHours  how many of the busiest hours of the day to list
     */
    public CapacityAnalysis(InfluxDB influx, String database, CapacityQueries queries, double idleBelow, int topJobs,
                            int topHours) {
        this.reader = new SeriesReader(influx, database);
        this.queries = queries;
        this.idleBelow = idleBelow;
        this.topJobs = topJobs;
        this.topHours = topHours;
    }

    public CapacityReport run() {
        Instant now = Instant.now();
        // the heaviest query: its rows give both the link table and the link count of each node
        List<Row> linkPercentiles = reader.rows(queries.linkPercentiles());
        return new CapacityReport(queries.retentionPolicy(), queries.windowLiteral(), now.toString(), idleBelow,
                links(linkPercentiles), nodes(linkPercentiles), idleLinks(), busiestJobs(), busiestHours(),
                rdmaUse());
    }

    private List<LinkUsage> links(List<Row> linkPercentiles) {
        Map<String, Row> peaks = byKey(reader.rows(queries.linkPeakHour()), CapacityAnalysis::linkKey);
        return linkPercentiles.stream()
                .map(r -> {
                    Row peak = peaks.get(linkKey(r));
                    return new LinkUsage(r.tag("node"), r.tag("device"), r.tag("port"), r.number("p50"),
                            r.number("p95"), r.number("p99"), r.number("max"), r.number("nominal"),
                            r.number("headroom"), r.number("headroom_bytes_per_sec"),
                            peak == null ? null : peak.time(), peak == null ? null : peak.number("utilisation"));
                })
                .sorted(Comparator.comparing(LinkUsage::p95, Comparator.nullsLast(Comparator.reverseOrder()))
                        .thenComparing(LinkUsage::node).thenComparing(LinkUsage::device)
                        .thenComparing(LinkUsage::port))
                .toList();
    }

    private List<NodeUsage> nodes(List<Row> linkPercentiles) {
        Map<String, Long> linksPerNode = linkPercentiles.stream()
                .collect(Collectors.groupingBy(r -> r.tag("node"), Collectors.counting()));
        Map<String, Row> peaks = byKey(reader.rows(queries.nodePeakHour()), r -> r.tag("node"));
        return reader.rows(queries.nodePercentiles()).stream()
                .map(r -> {
                    Row peak = peaks.get(r.tag("node"));
                    return new NodeUsage(r.tag("node"), linksPerNode.getOrDefault(r.tag("node"), 0L).intValue(),
                            r.number("p50"), r.number("p95"), r.number("p99"), r.number("max"), r.number("headroom"),
                            peak == null ? null : peak.time(), peak == null ? null : peak.number("utilisation"));
                })
                .sorted(Comparator.comparing(NodeUsage::p95, Comparator.nullsLast(Comparator.reverseOrder()))
                        .thenComparing(NodeUsage::node))
                .toList();
    }

    private List<IdleLink> idleLinks() {
        Map<String, String> jobNames = new HashMap<>();
        for (Row r : reader.rows(queries.jobNames())) {
            jobNames.put(r.tag("job_uid"), r.tag("job"));
        }
        return reader.rows(queries.idleLinks(idleBelow)).stream()
                .map(r -> new IdleLink(r.tag("node"), r.tag("device"), r.tag("port"), r.tag("namespace"),
                        r.tag("job_uid"), jobNames.get(r.tag("job_uid")), count(r.number("minutes")),
                        r.number("peak"), r.number("mean")))
                .sorted(Comparator.comparingLong(IdleLink::minutes).reversed()
                        .thenComparing(IdleLink::node).thenComparing(IdleLink::device))
                .toList();
    }

    private List<JobDemand> busiestJobs() {
        return reader.rows(queries.jobDemand()).stream()
                .map(r -> new JobDemand(r.tag("namespace"), r.tag("job"), r.number("mean"), r.number("p50"),
                        r.number("p95"), r.number("p99"), r.number("peak"), count(r.number("minutes"))))
                .sorted(Comparator.comparing(JobDemand::meanBytesPerSec,
                        Comparator.nullsLast(Comparator.reverseOrder())))
                .limit(topJobs)
                .toList();
    }

    /** Jobs by RDMA share, lowest first: the jobs that barely used RDMA lead; jobs with no share known last. */
    private List<JobRdmaUse> rdmaUse() {
        return reader.rows(queries.jobRdmaUse()).stream()
                .map(r -> {
                    Double peak = r.number("peak_nic");
                    Double expected = r.number("expected_nic");
                    return new JobRdmaUse(r.tag("namespace"), r.tag("job"), r.number("rdma_share"), r.number("rdma"),
                            r.number("host"), peak, expected, peak == null || expected == null ? null
                            : peak / expected, count(r.number("minutes")));
                })
                .sorted(Comparator.comparing(JobRdmaUse::rdmaShare, Comparator.nullsLast(Comparator.naturalOrder()))
                        .thenComparing(JobRdmaUse::namespace).thenComparing(JobRdmaUse::job))
                .limit(topJobs)
                .toList();
    }

    /** Hourly cluster throughput folded into the 24 hours of the day (UTC), busiest first. */
    private List<HourOfDay> busiestHours() {
        Map<Integer, List<Row>> byHour = reader.rows(queries.hourlyThroughput()).stream()
                .filter(r -> r.number("tx") != null && r.number("time") != null)
                .collect(Collectors.groupingBy(r -> Instant.ofEpochMilli(r.number("time").longValue())
                        .atZone(ZoneOffset.UTC).getHour()));
        return byHour.entrySet().stream()
                .map(e -> new HourOfDay(e.getKey(),
                        e.getValue().stream().mapToDouble(r -> r.number("tx")).average().orElse(0),
                        e.getValue().stream().mapToDouble(r -> r.number("rx") == null ? 0 : r.number("rx"))
                                .average().orElse(0),
                        e.getValue().size()))
                .sorted(Comparator.comparingDouble(HourOfDay::meanTxBytesPerSec).reversed())
                .limit(topHours)
                .toList();
    }

    private static String linkKey(Row r) {
        return r.tag("node") + "/" + r.tag("device") + "/" + r.tag("port");
    }

    private static Map<String, Row> byKey(List<Row> rows, Function<Row, String> key) {
        Map<String, Row> out = new HashMap<>();
        rows.forEach(r -> out.put(key.apply(r), r));
        return out;
    }

    private static long count(Double value) {
        return value == null ? 0 : value.longValue();
    }
}
