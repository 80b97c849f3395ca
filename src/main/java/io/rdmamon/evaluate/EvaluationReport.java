package io.rdmamon.evaluate;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.rdmamon.model.Alert;
import io.rdmamon.scenario.Incident;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/** The result of {@code rdmamon evaluate}: per-scenario scores and per-type figures, as a text table or JSON. */
@JsonPropertyOrder({"slackMs", "types", "scenarios"})
public record EvaluationReport(long slackMs, List<TypeSummary> types, List<ScenarioScore> scenarios) {

    public static EvaluationReport of(List<ScenarioScore> scores, long slackMs) {
        return new EvaluationReport(slackMs, TypeSummary.of(scores), scores);
    }

    public int totalFalsePositives() {
        return types.stream().mapToInt(TypeSummary::falsePositives).sum();
    }

    public int totalMisses() {
        return types.stream().mapToInt(TypeSummary::misses).sum();
    }

    /** Detections later than their incident allows ({@code maxLatencyMs}). */
    public int totalLate() {
        return scenarios.stream().mapToInt(s -> s.late().size()).sum();
    }

    public void printTable(PrintWriter out) {
        out.printf("%-20s %4s %4s %5s %4s %5s  %s%n", "scenario", "TP", "FP", "miss", "dup", "tol", "details");
        for (ScenarioScore s : scenarios) {
            StringBuilder details = new StringBuilder();
            s.hits().forEach(h -> details.append(h.incident().type()).append(" +").append(seconds(h.latencyMs()))
                    .append(h.late() ? " LATE (max " + seconds(h.incident().maxLatencyMs()) + ")" : "").append("  "));
            s.misses().forEach(i -> details.append("MISSED ").append(describe(i)).append("  "));
            s.falsePositives().forEach(a -> details.append("FP ").append(describe(a)).append("  "));
            out.printf("%-20s %4d %4d %5d %4d %5d  %s%n", s.scenario(), s.hits().size(), s.falsePositives().size(),
                    s.misses().size(), s.duplicates().size(), s.tolerated().size(), details.toString().trim());
        }
        out.println();
        out.printf("%-16s %4s %4s %5s %4s %5s %10s %10s %10s%n", "alert type", "TP", "FP", "miss", "dup", "tol",
                "median", "p95", "max");
        for (TypeSummary t : types) {
            out.printf("%-16s %4d %4d %5d %4d %5d %10s %10s %10s%n", t.type(), t.truePositives(),
                    t.falsePositives(), t.misses(), t.duplicates(), t.tolerated(), seconds(t.latencyMedianMs()),
                    seconds(t.latencyP95Ms()), seconds(t.latencyMaxMs()));
        }
        out.printf("%nlatency: ground-truth onset to detectedAt; a detection counts until an incident's end + %s%n",
                seconds(slackMs));
        if (totalLate() > 0) {
            out.printf("late: %d detection(s) after their incident's maxLatencyMs%n", totalLate());
        }
        out.flush();
    }

    static String seconds(Long ms) {
        return ms == null ? "-" : String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
    }

    private static String describe(Incident i) {
        return i.type() + subject(i.jobName(), i.node(), i.device(), i.port());
    }

    private static String describe(Alert a) {
        return a.type() + subject(a.job(), a.node(), a.device(), a.port());
    }

    private static String subject(String job, String node, String device, Integer port) {
        StringBuilder s = new StringBuilder("(");
        if (job != null) {
            s.append(job);
        }
        if (node != null) {
            s.append(s.length() > 1 ? " " : "").append(node);
            if (device != null) {
                s.append('/').append(device).append(port == null ? "" : "/" + port);
            }
        }
        return s.append(')').toString();
    }
}
