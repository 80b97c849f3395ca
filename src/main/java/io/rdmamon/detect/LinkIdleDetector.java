package io.rdmamon.detect;

import io.rdmamon.jobs.AssignedSample;
import io.rdmamon.jobs.Holder;
import io.rdmamon.model.Alert;
import io.rdmamon.model.PortSample;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * LINK_IDLE: a port held by a Running job that carried less than {@code streams.link.idle.bytes.per.sec} for
 * {@code streams.link.idle.after.ms} (10 min by default): capacity allocated and unused (NCCL chose another NIC, a
 * single-node job holds NICs, a hung job). Resolves when traffic returns or the job lets the device go. Samples
 * without a rate are unknown and change nothing.
 */
public final class LinkIdleDetector extends PortDetector<LinkIdleDetector.State> {

    /** Idle since {@code idleSince} while held by {@code holders}; {@code alerted} once reported. */
    public record State(long idleSince, List<String> holders, boolean alerted) {
    }

    private final long idleAfterMs;
    private final double idleBytesPerSec;

    public LinkIdleDetector(DetectorConfig config) {
        super(Alert.LINK_IDLE, State.class);
        this.idleAfterMs = config.linkIdleAfterMs();
        this.idleBytesPerSec = config.linkIdleBytesPerSec();
    }

    @Override
    public Result<State> inspect(State state, AssignedSample value, long ts) {
        Boolean idle = idle(value.sample());
        if (state == null && (!Boolean.TRUE.equals(idle) || value.assignment().holders().isEmpty())) {
            return null; // the common case, a busy or unassigned port: nothing to keep
        }
        List<String> holders = value.assignment().holders().stream().map(Holder::uid).toList();
        Subject subject = PortSubjects.of(value);
        if (state != null && !state.holders().equals(holders)) {
            // the port changed hands or was released: the old incident ends, the new holders' idle time starts now
            State fresh = !holders.isEmpty() && Boolean.TRUE.equals(idle) ? new State(ts, holders, false) : null;
            return Result.of(fresh, Observation.cleared(subject, ts));
        }
        if (holders.isEmpty() || idle == null) {
            return null;
        }
        if (!idle) {
            return state == null ? null : Result.of(null, Observation.cleared(subject, ts));
        }
        State current = state == null ? new State(ts, holders, false) : state;
        if (current.alerted() || ts - current.idleSince() < idleAfterMs) {
            return Result.of(current);
        }
        Map<String, String> labels = new LinkedHashMap<>(PortSubjects.labels(value));
        labels.put("idleForSeconds", String.valueOf((ts - current.idleSince()) / 1000));
        Condition condition = new Condition(current.idleSince(), Condition.INFO, "allocated link idle: "
                + PortSubjects.describe(value) + " carried no traffic for " + (ts - current.idleSince()) / 60_000
                + " min", labels);
        return Result.of(new State(current.idleSince(), holders, true), Observation.holds(subject, condition, ts));
    }

    /** Null when the sample has no rate (unknown, never idle). */
    private Boolean idle(PortSample s) {
        if (s.txBytesPerSec() == null || s.rxBytesPerSec() == null) {
            return null;
        }
        return s.txBytesPerSec() + s.rxBytesPerSec() < idleBytesPerSec;
    }
}
