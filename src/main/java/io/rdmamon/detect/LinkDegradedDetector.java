package io.rdmamon.detect;

import io.rdmamon.jobs.AssignedSample;
import io.rdmamon.model.Alert;
import io.rdmamon.model.CounterClass;
import io.rdmamon.model.PortSample;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * LINK_DEGRADED: a port that keeps counting errors (at least {@code streams.link.degraded.min.samples} samples with
 * increments of the degrading classes within {@code streams.link.degraded.window.ms}), or whose rate fell below
 * nominal (a speed downshift: below {@code streams.link.nominal.rate.bytes.per.sec}, or below the highest rate the
 * port has shown). One burst of errors is not degradation; the incident resolves after
 * {@code streams.link.degraded.clear.ms} without errors at full rate.
 *
 * <p>Throughput far below peers is judged per job and rail by {@link StragglerDetector}: synchronous training
 * equalises bytes, so only a rail comparison (or missing traffic) can single out a link by throughput.
 */
public final class LinkDegradedDetector extends PortDetector<LinkDegradedDetector.State> {

    /**
     * {@code maxRate}: highest nominal rate seen; {@code errorTimes}: samples with increments inside the window;
     * {@code since}/{@code lastBadAt}/{@code cleanSince}: the open incident, null when none.
     */
    public record State(Long maxRate, List<Long> errorTimes, Long since, Long lastBadAt, Long cleanSince) {
        public State {
            errorTimes = errorTimes == null ? List.of() : List.copyOf(errorTimes);
        }
    }

    private final Set<CounterClass> classes;
    private final long windowMs;
    private final int minSamples;
    private final long clearMs;
    private final Long nominalRate;

    public LinkDegradedDetector(DetectorConfig config) {
        super(Alert.LINK_DEGRADED, State.class);
        this.classes = config.degradingClasses();
        this.windowMs = config.linkDegradedWindowMs();
        this.minSamples = config.linkDegradedMinSamples();
        this.clearMs = config.linkDegradedClearMs();
        this.nominalRate = config.linkNominalRateBytesPerSec();
    }

    @Override
    public Result<State> inspect(State state, AssignedSample value, long ts) {
        PortSample s = value.sample();
        State st = state == null ? new State(null, List.of(), null, null, null) : state;
        Long rate = s.rateBytesPerSec();
        // boxed on every branch: a mixed Long/long conditional unboxes a null maxRate (a port that never had a nominal
        // rate, such as an ACS pod's socket port, eth0) and threw for each of its samples
        Long maxRate = rate == null ? st.maxRate() : st.maxRate() == null ? rate
                : Long.valueOf(Math.max(st.maxRate(), rate));
        Long nominal = nominalRate != null ? nominalRate : maxRate;
        boolean downshift = rate != null && nominal != null && rate < nominal;

        long errors = PortErrors.sum(s, classes);
        List<Long> errorTimes = errors == 0 && st.errorTimes().isEmpty() ? List.of() : errorTimes(st, errors, ts);
        boolean sustained = errorTimes.size() >= minSamples;

        if (st.since() == null) {
            if (!sustained && !downshift) {
                return Result.of(new State(maxRate, errorTimes, null, null, null));
            }
            long since = downshift && !sustained ? ts : errorTimes.get(0);
            Condition condition = new Condition(since, PortSubjects.severity(value, Condition.WARNING),
                    summary(value, sustained, downshift, errorTimes.size(), rate, nominal),
                    labels(value, sustained, downshift, rate, nominal));
            return Result.of(new State(maxRate, errorTimes, since, ts, null),
                    Observation.holds(PortSubjects.of(value), condition, ts));
        }
        if (errors > 0 || downshift) {
            return Result.of(new State(maxRate, errorTimes, st.since(), ts, null));
        }
        long cleanSince = st.cleanSince() == null ? ts : st.cleanSince();
        if (ts - st.lastBadAt() >= clearMs) {
            return Result.of(new State(maxRate, errorTimes, null, null, null),
                    Observation.cleared(PortSubjects.of(value), cleanSince));
        }
        return Result.of(new State(maxRate, errorTimes, st.since(), st.lastBadAt(), cleanSince));
    }

    /** The samples with errors still inside the window, this one included when it counted errors. */
    private List<Long> errorTimes(State st, long errors, long ts) {
        List<Long> times = new ArrayList<>(st.errorTimes().stream().filter(t -> t > ts - windowMs).toList());
        if (errors > 0) {
            times.add(ts);
        }
        return times;
    }

    private String summary(AssignedSample value, boolean sustained, boolean downshift, int errorSamples, Long rate,
                           Long nominal) {
        List<String> why = new ArrayList<>();
        if (sustained) {
            why.add(errorSamples + " samples with errors in " + windowMs / 1000 + " s " + PortErrors.byClass(value
                    .sample()));
        }
        if (downshift) {
            why.add("rate " + gbps(rate) + " below nominal " + gbps(nominal));
        }
        return "link degraded: " + PortSubjects.describe(value) + " (" + String.join("; ", why) + ")";
    }

    private static Map<String, String> labels(AssignedSample value, boolean sustained, boolean downshift, Long rate,
                                              Long nominal) {
        Map<String, String> labels = new LinkedHashMap<>(PortSubjects.labels(value));
        labels.put("reason", sustained && downshift ? "errors,downshift" : sustained ? "errors" : "downshift");
        if (downshift) {
            labels.put("rateBytesPerSec", String.valueOf(rate));
            labels.put("nominalBytesPerSec", String.valueOf(nominal));
        }
        return labels;
    }

    private static String gbps(Long bytesPerSec) {
        return bytesPerSec == null ? "unknown" : String.format(Locale.ROOT, "%.0f Gb/s",
                bytesPerSec * 8 / 1e9);
    }
}
