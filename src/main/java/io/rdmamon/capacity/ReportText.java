package io.rdmamon.capacity;

import io.rdmamon.capacity.CapacityReport.HourOfDay;
import io.rdmamon.capacity.CapacityReport.IdleLink;
import io.rdmamon.capacity.CapacityReport.JobDemand;
import io.rdmamon.capacity.CapacityReport.JobRdmaUse;
import io.rdmamon.capacity.CapacityReport.NodeUsage;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The capacity report as aligned text tables, one section per question a capacity planner asks. */
final class ReportText {
    private static final String[] BYTE_UNITS = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};

    private ReportText() {
    }

    static String render(CapacityReport r) {
        StringBuilder sb = new StringBuilder();
        sb.append("rdmamon capacity report: last ").append(r.window()).append(" until ").append(r.generatedAt())
                .append(", from retention policy ").append(r.source()).append('\n')
                .append("Statistics over 1-minute means; utilisation = larger of tx and rx over the port's nominal "
                        + "rate; headroom = 1 - p95.\n");

        section(sb, "LINKS (highest p95 first)", List.of("NODE", "DEVICE", "PORT", "P50", "P95", "P99", "MAX",
                "NOMINAL", "HEADROOM", "HEADROOM/S", "PEAK HOUR (UTC)", "PEAK"), r.links().stream()
                .map(l -> List.of(l.node(), l.device(), l.port(), pct(l.p50()), pct(l.p95()), pct(l.p99()),
                        pct(l.max()), bytes(l.nominalBytesPerSec()), pct(l.headroom()),
                        bytes(l.headroomBytesPerSec()), hour(l.peakHour()), pct(l.peakHourUtilisation())))
                .toList());
        section(sb, "NODES (mean over the node's links, highest p95 first)", List.of("NODE", "LINKS", "P50", "P95",
                "P99", "MAX", "HEADROOM", "PEAK HOUR (UTC)", "PEAK"), r.nodes().stream()
                .map((NodeUsage n) -> List.of(n.node(), String.valueOf(n.links()), pct(n.p50()), pct(n.p95()),
                        pct(n.p99()), pct(n.max()), pct(n.headroom()), hour(n.peakHour()),
                        pct(n.peakHourUtilisation())))
                .toList());
        section(sb, "ALLOCATED BUT IDLE LINKS (held by a running job, no minute reached " + pct(r.idleBelow()) + ")",
                List.of("NODE", "DEVICE", "PORT", "NAMESPACE", "JOB", "MINUTES", "PEAK", "MEAN"), r.idleLinks()
                        .stream()
                        .map((IdleLink l) -> List.of(l.node(), l.device(), l.port(), text(l.namespace()),
                                l.job() != null ? l.job() : text(l.jobUid()), String.valueOf(l.minutes()),
                                pct(l.peakUtilisation()), pct(l.meanUtilisation())))
                        .toList());
        section(sb, "BUSIEST JOBS (tx + rx while running)", List.of("NAMESPACE", "JOB", "MEAN", "P50", "P95", "P99",
                "PEAK", "MINUTES"), r.busiestJobs().stream()
                .map((JobDemand j) -> List.of(text(j.namespace()), text(j.job()), bytes(j.meanBytesPerSec()),
                        bytes(j.p50BytesPerSec()), bytes(j.p95BytesPerSec()), bytes(j.p99BytesPerSec()),
                        bytes(j.peakBytesPerSec()), String.valueOf(j.minutes())))
                .toList());
        section(sb, "BUSIEST HOURS OF THE DAY (UTC, mean cluster throughput)", List.of("HOUR", "TX", "RX",
                "HOURS SEEN"), r.busiestHoursOfDay().stream()
                .map((HourOfDay h) -> List.of(String.format(Locale.ROOT, "%02d:00", h.hourUtc()),
                        bytes(h.meanTxBytesPerSec()), bytes(h.meanRxBytesPerSec()), String.valueOf(h.hours())))
                .toList());
        section(sb, "DID RDMA HELP? (jobs by RDMA share = RDMA / (RDMA + host interface) bytes, lowest first; "
                + "peak 1-minute mean per NIC against the expected figure)", List.of("NAMESPACE", "JOB", "RDMA SHARE",
                "RDMA MEAN", "HOST MEAN", "PEAK/NIC", "EXPECTED/NIC", "OF EXPECTED", "MINUTES"), r.rdmaUse().stream()
                .map((JobRdmaUse j) -> List.of(text(j.namespace()), text(j.job()), pct(j.rdmaShare()),
                        bytes(j.meanRdmaBytesPerSec()), bytes(j.meanHostBytesPerSec()), bytes(j.peakNicBytesPerSec()),
                        bytes(j.expectedNicBytesPerSec()), pct(j.peakOfExpected()), String.valueOf(j.minutes())))
                .toList());
        return sb.toString();
    }

    private static void section(StringBuilder sb, String title, List<String> header, List<List<String>> rows) {
        sb.append('\n').append(title).append('\n');
        if (rows.isEmpty()) {
            sb.append("  (none)\n");
            return;
        }
        int[] widths = new int[header.size()];
        List<List<String>> all = new ArrayList<>();
        all.add(header);
        all.addAll(rows);
        for (List<String> row : all) {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        for (List<String> row : all) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                line.append(String.format(Locale.ROOT, "%-" + widths[i] + "s", row.get(i)));
                if (i < row.size() - 1) {
                    line.append("  ");
                }
            }
            sb.append(line.toString().stripTrailing()).append('\n');
        }
    }

    static String pct(Double fraction) {
        return fraction == null ? "-" : String.format(Locale.ROOT, "%.1f%%", fraction * 100);
    }

    static String bytes(Double perSecond) {
        if (perSecond == null) {
            return "-";
        }
        double value = perSecond;
        int unit = 0;
        while (Math.abs(value) >= 1000 && unit < BYTE_UNITS.length - 1) {
            value /= 1000;
            unit++;
        }
        return String.format(Locale.ROOT, "%.2f %s", value, BYTE_UNITS[unit]);
    }

    private static String hour(String isoTime) {
        // 2026-11-21T05:00:00Z -> 2026-11-21 05:00
        return isoTime == null || isoTime.length() < 16 ? "-" : isoTime.substring(0, 16).replace('T', ' ');
    }

    private static String text(String value) {
        return value == null || value.isBlank() ? "-" : value;
    }
}
