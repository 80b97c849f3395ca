package io.rdmamon.detect;

import io.rdmamon.jobs.AssignedSample;
import io.rdmamon.model.Alert;
import io.rdmamon.model.CounterClass;
import io.rdmamon.model.PortSample;

import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * LINK_DOWN: a port whose state is known and not ACTIVE, or whose {@code link_downed}/{@code link_error_recovery}
 * counters went up (a flap between two samples shows only there). The incident stays open until the port has been
 * clean for {@code streams.link.down.clear.ms}, so a flapping link is one incident; it ends at the first clean sample.
 */
public final class LinkDownDetector extends PortDetector<LinkDownDetector.State> {

    /** {@code downSince}: start of the incident; {@code lastBadAt}: last bad sample; {@code cleanSince}: first good one after it. */
    public record State(long downSince, long lastBadAt, Long cleanSince) {
    }

    private static final Set<CounterClass> DOWN_CLASSES = EnumSet.of(CounterClass.LINK_DOWN);

    private final long clearMs;

    public LinkDownDetector(DetectorConfig config) {
        super(Alert.LINK_DOWN, State.class);
        this.clearMs = config.linkDownClearMs();
    }

    @Override
    public Result<State> inspect(State state, AssignedSample value, long ts) {
        PortSample s = value.sample();
        long downs = PortErrors.sum(s, DOWN_CLASSES);
        boolean notActive = PortErrors.knownNotActive(s.state());
        if (notActive || downs > 0) {
            if (state != null) {
                return Result.of(new State(state.downSince(), ts, null));
            }
            String why = notActive ? "state " + s.state() + (s.physState() == null ? "" : " / " + s.physState())
                    : "link_downed +" + downs;
            Map<String, String> labels = new LinkedHashMap<>(PortSubjects.labels(value));
            labels.put("reason", notActive ? "state" : "link_downed");
            Condition condition = new Condition(ts, PortSubjects.severity(value, Condition.CRITICAL),
                    "link down: " + PortSubjects.describe(value) + " (" + why + ")", labels);
            return Result.of(new State(ts, ts, null), Observation.holds(PortSubjects.of(value), condition, ts));
        }
        if (state == null) {
            return null;
        }
        long cleanSince = state.cleanSince() == null ? ts : state.cleanSince();
        if (ts - state.lastBadAt() >= clearMs) {
            return Result.of(null, Observation.cleared(PortSubjects.of(value), cleanSince));
        }
        return Result.of(new State(state.downSince(), state.lastBadAt(), cleanSince));
    }
}
