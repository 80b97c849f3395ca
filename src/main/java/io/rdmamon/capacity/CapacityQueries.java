package io.rdmamon.capacity;

import java.time.Duration;
import java.util.Locale;

import static io.rdmamon.influx.InfluxQl.quote;

/**
 * The InfluxQL behind {@code rdmamon capacity} and the Capacity planning dashboard (docs/dashboards.md prints them).
 * Every statistic is taken over 1-minute means: the inner query groups by {@code time(1m)}, which is a no-op on the
 * rollup retention policy (one point per minute already) and averages raw samples on the raw one, so both sources
 * give comparable numbers. Utilisation is {@code link_health.utilisation}: the larger of tx and rx bytes per second
 * over the port's nominal rate. Percentiles are InfluxDB's nearest-rank {@code percentile()}.
 *
 * @param retentionPolicy where to read: the rollup policy ({@code rp_1y}), the raw one ({@code rp_raw}), or empty
 *                        for none (InfluxDB 3 Core)
 * @param window          how far back from now
 */
public record CapacityQueries(String retentionPolicy, Duration window) {
    private static final String LINK = "\"node\", \"device\", \"port\"";
    private static final String IDLE_GROUP = LINK + ", \"namespace\", \"job_uid\"";

    /** Per link: p50/p95/p99/max utilisation, nominal rate, headroom (1 - p95) as a fraction and in bytes/s. */
    public String linkPercentiles() {
        return "SELECT percentile(\"u\", 50) AS \"p50\", percentile(\"u\", 95) AS \"p95\", percentile(\"u\", 99) AS "
                + "\"p99\", max(\"u\") AS \"max\", 1 - percentile(\"u\", 95) AS \"headroom\", max(\"rate\") AS "
                + "\"nominal\", max(\"rate\") * (1 - percentile(\"u\", 95)) AS \"headroom_bytes_per_sec\" FROM "
                + "(SELECT mean(\"utilisation\") AS \"u\", max(\"rate_bytes_per_sec\") AS \"rate\" FROM "
                + from("link_health") + " WHERE " + since() + " GROUP BY time(1m), " + LINK + " fill(none)) "
                + "GROUP BY " + LINK;
    }

    /** Per node: percentiles of the 1-minute mean utilisation over all the node's links. */
    public String nodePercentiles() {
        return "SELECT percentile(\"u\", 50) AS \"p50\", percentile(\"u\", 95) AS \"p95\", percentile(\"u\", 99) AS "
                + "\"p99\", max(\"u\") AS \"max\", 1 - percentile(\"u\", 95) AS \"headroom\" FROM "
                + nodeMinutes() + " GROUP BY \"node\"";
    }

    /** Per link: the clock hour with the highest mean utilisation (its time is the hour's start). */
    public String linkPeakHour() {
        return "SELECT max(\"u\") AS \"utilisation\" FROM (SELECT mean(\"utilisation\") AS \"u\" FROM "
                + from("link_health") + " WHERE " + since() + " GROUP BY time(1h), " + LINK + " fill(none)) "
                + "GROUP BY " + LINK;
    }

    /** Per node: the clock hour with the highest mean utilisation over the node's links. */
    public String nodePeakHour() {
        return "SELECT max(\"u\") AS \"utilisation\" FROM (SELECT mean(\"utilisation\") AS \"u\" FROM "
                + from("link_health") + " WHERE " + since() + " GROUP BY time(1h), \"node\" fill(none)) "
                + "GROUP BY \"node\"";
    }

    /**
     * Links held by a Running job ({@code job_uid} set) whose 1-minute mean utilisation never reached
     * {@code idleBelow}, with the minutes they were held and their peak and mean utilisation.
     */
    public String idleLinks(double idleBelow) {
        return "SELECT \"peak\", \"mean\", \"minutes\" FROM (SELECT max(\"u\") AS \"peak\", mean(\"u\") AS \"mean\", "
                + "count(\"u\") AS \"minutes\" FROM (SELECT mean(\"utilisation\") AS \"u\" FROM " + from("link_health")
                + " WHERE " + since() + " AND \"job_uid\" != '' GROUP BY time(1m), " + IDLE_GROUP + " fill(none)) "
                + "GROUP BY " + IDLE_GROUP + ") WHERE \"peak\" < " + number(idleBelow) + " GROUP BY " + IDLE_GROUP;
    }

    /** Per job: mean, p50/p95/p99 and peak bandwidth (tx + rx) over the minutes it ran, and those minutes. */
    public String jobDemand() {
        return "SELECT mean(\"b\") AS \"mean\", percentile(\"b\", 50) AS \"p50\", percentile(\"b\", 95) AS \"p95\", "
                + "percentile(\"b\", 99) AS \"p99\", max(\"b\") AS \"peak\", count(\"b\") AS \"minutes\" FROM "
                + "(SELECT mean(\"bytes_per_sec\") AS \"b\" FROM " + from("job_bandwidth") + " WHERE " + since()
                + " GROUP BY time(1m), \"namespace\", \"job\" fill(none)) GROUP BY \"namespace\", \"job\"";
    }

    /**
     * Per job, over the minutes it ran: mean RDMA share (RDMA / (RDMA + host) bytes), mean RDMA and host bytes/s, the
     * peak 1-minute mean per NIC and the largest expected per-NIC figure, and those minutes. "Did RDMA help?"
     */
    public String jobRdmaUse() {
        return "SELECT mean(\"s\") AS \"rdma_share\", mean(\"b\") AS \"rdma\", mean(\"h\") AS \"host\", "
                + "max(\"n\") AS \"peak_nic\", max(\"e\") AS \"expected_nic\", count(\"b\") AS \"minutes\" FROM "
                + "(SELECT mean(\"rdma_share\") AS \"s\", mean(\"bytes_per_sec\") AS \"b\", "
                + "mean(\"host_bytes_per_sec\") AS \"h\", mean(\"nic_bytes_per_sec\") AS \"n\", "
                + "max(\"expected_nic_bytes_per_sec\") AS \"e\" FROM " + from("job_bandwidth") + " WHERE " + since()
                + " GROUP BY time(1m), \"namespace\", \"job\" fill(none)) GROUP BY \"namespace\", \"job\"";
    }

    /** Job names by uid ({@code link_health} knows a port's job only by uid). */
    public String jobNames() {
        return "SELECT last(\"bytes_per_sec\") FROM " + from("job_bandwidth") + " WHERE " + since()
                + " GROUP BY \"job_uid\", \"job\"";
    }

    /** Mean cluster throughput of each clock hour: the sum over ports of their hourly means. */
    public String hourlyThroughput() {
        return "SELECT sum(\"tx\") AS \"tx\", sum(\"rx\") AS \"rx\" FROM (SELECT mean(\"tx_bytes_per_sec\") AS \"tx\", "
                + "mean(\"rx_bytes_per_sec\") AS \"rx\" FROM " + from("rdma_port") + " WHERE " + since()
                + " GROUP BY time(1h), " + LINK + " fill(none)) WHERE " + since() + " GROUP BY time(1h) fill(none)";
    }

    /** The window as an InfluxQL duration literal: {@code 7d}, {@code 36h}, {@code 90m}, {@code 45s}. */
    public String windowLiteral() {
        long seconds = Math.max(1, window.toSeconds());
        if (seconds % 86_400 == 0) {
            return seconds / 86_400 + "d";
        }
        if (seconds % 3_600 == 0) {
            return seconds / 3_600 + "h";
        }
        return seconds % 60 == 0 ? seconds / 60 + "m" : seconds + "s";
    }

    private String nodeMinutes() {
        return "(SELECT mean(\"utilisation\") AS \"u\" FROM " + from("link_health") + " WHERE " + since()
                + " GROUP BY time(1m), \"node\" fill(none))";
    }

    private String since() {
        return "time > now() - " + windowLiteral();
    }

    /** No policy (InfluxDB 3 Core, {@code influx.retention.policy=} empty): the database's own data. */
    private String from(String measurement) {
        return retentionPolicy == null || retentionPolicy.isEmpty() ? quote(measurement)
                : quote(retentionPolicy) + "." + quote(measurement);
    }

    private static String number(double value) {
        return String.format(Locale.ROOT, "%s", value);
    }
}
