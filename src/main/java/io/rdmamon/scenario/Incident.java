package io.rdmamon.scenario;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One labelled incident of a scenario's ground truth: what happened, to whom, from {@code onsetMs} until
 * {@code endMs} (event time, epoch ms; null = until the scenario's end). {@code expect} says what a correct monitor
 * does: {@link #ALERT} raise an alert of {@code type} for this subject (a miss otherwise), {@link #TOLERATE} it may
 * (a side effect, e.g. a straggler alert next to a degraded link: neither a hit nor a false positive), {@link #NONE}
 * it must not (e.g. a stall visible only in estimated figures: an alert is a false positive). Subject fields that do
 * not apply are null; {@code job} is the job uid. {@code maxLatencyMs}, when set, is how late after the onset a
 * detection may come: a later one is reported as late (and fails {@code evaluate --strict}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"type", "expect", "job", "jobName", "node", "device", "port", "onsetMs", "endMs", "note",
        "maxLatencyMs"})
public record Incident(
        String type,
        String expect,
        String job,
        String jobName,
        String node,
        String device,
        Integer port,
        long onsetMs,
        Long endMs,
        String note,
        Long maxLatencyMs) {

    public static final String ALERT = "alert";
    public static final String TOLERATE = "tolerate";
    public static final String NONE = "none";

    public Incident {
        expect = expect == null ? ALERT : expect;
        if (!ALERT.equals(expect) && !TOLERATE.equals(expect) && !NONE.equals(expect)) {
            throw new IllegalArgumentException("expect must be alert, tolerate or none, got " + expect);
        }
    }

    public Incident(String type, String expect, String job, String jobName, String node, String device, Integer port,
                    long onsetMs, Long endMs, String note) {
        this(type, expect, job, jobName, node, device, port, onsetMs, endMs, note, null);
    }

    public Incident withExpect(String newExpect) {
        return new Incident(type, newExpect, job, jobName, node, device, port, onsetMs, endMs, note, maxLatencyMs);
    }

    public boolean required() {
        return ALERT.equals(expect);
    }
}
